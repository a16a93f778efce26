/**
 * Who is the same customer. Reminders go to people, not to booking sessions, so both nodes compare
 * customers by their contact details:
 * - the same e-mail, spaces trimmed and case ignored; or
 * - the same phone, compared as the digits of its international form.
 *
 * Phones come in two shapes (contract): requests hold the international format ("+15125550199"),
 * drafts hold what the customer typed ("(512) 555-0199"). The rule for a number:
 * - a leading "+" or "00": the digits after it are the international number;
 * - no country code: 10 digits are a North American number (country code 1 is added), 11 digits
 *   starting with 1 are one already; other lengths are kept as typed, so they match only the same
 *   digits typed again (a national number of another country cannot be told apart from a partial one);
 * - fewer than 7 digits identify nobody (no phone key).
 */

export const MIN_PHONE_DIGITS = 7;

/** The e-mail as compared: trimmed, lower case; undefined when it is not an address. */
export function normaliseEmail(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const email = value.trim().toLowerCase();
	const at = email.indexOf('@');
	return at > 0 && at < email.length - 1 && !/\s/.test(email) ? email : undefined;
}

/** The phone as compared: the digits of its international form; undefined when it identifies nobody. */
export function normalisePhone(value: unknown): string | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	let digits = text.replace(/\D/g, '');
	const international = text.startsWith('+') || digits.startsWith('00');
	if (!international && digits.length === 10) digits = `1${digits}`;
	else if (digits.startsWith('00') && !text.startsWith('+')) digits = digits.slice(2);
	return digits.length >= MIN_PHONE_DIGITS ? digits : undefined;
}

/**
 * The keys a customer is known by: `e:<email>` and/or `p:<digits>`. Two records are the same customer
 * when they share at least one key. Empty when the record has neither a usable e-mail nor phone.
 */
export function customerKeys(contact: { email?: unknown; phone?: unknown }): string[] {
	const keys: string[] = [];
	const email = normaliseEmail(contact.email);
	if (email) keys.push(`e:${email}`);
	const phone = normalisePhone(contact.phone);
	if (phone) keys.push(`p:${phone}`);
	return keys;
}

/** Whether two contacts are the same customer (a shared e-mail or phone key). */
export function sameCustomer(a: { email?: unknown; phone?: unknown }, b: { email?: unknown; phone?: unknown }): boolean {
	const keys = new Set(customerKeys(a));
	return customerKeys(b).some((key) => keys.has(key));
}
