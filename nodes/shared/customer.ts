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
 *
 * Placeholders identify nobody either: what people type to get past a required field would
 * otherwise make strangers one customer (one booking suppressing everyone's reminder). A phone whose
 * national part (its last 10 digits) is one digit repeated or a run such as 1234567890; an e-mail whose
 * name is a placeholder word (test, none, noreply, ...) or whose domain is one (test.com, none.com, ...).
 */

export const MIN_PHONE_DIGITS = 7;

const PLACEHOLDER_EMAIL_NAMES = new Set(['test', 'testing', 'none', 'no', 'na', 'n/a', 'null', 'noemail', 'no-email', 'nomail', 'noreply', 'no-reply', 'donotreply', 'do-not-reply', 'asdf', 'fake', 'x', 'xx', 'xxx']);
const PLACEHOLDER_EMAIL_DOMAINS = new Set(['test.com', 'none.com', 'noemail.com', 'nomail.com', 'fake.com', 'asdf.com', 'test.test']);

/** The e-mail as compared: trimmed, lower case; undefined when it is not an address or a placeholder. */
export function normaliseEmail(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const email = value.trim().toLowerCase();
	const at = email.lastIndexOf('@');
	if (!(at > 0 && at < email.length - 1 && !/\s/.test(email))) return undefined;
	return PLACEHOLDER_EMAIL_NAMES.has(email.slice(0, at)) || PLACEHOLDER_EMAIL_DOMAINS.has(email.slice(at + 1)) ? undefined : email;
}

/**
 * A phone typed to fill the field: its national part (the last 10 digits) one digit repeated, or a run
 * within 01234567890 or 9876543210. Read digit by digit: every poll asks for every booking it reads.
 */
function isPlaceholderPhone(digits: string): boolean {
	const start = Math.max(0, digits.length - 10);
	let repeated = digits.length - start >= 2;
	let up = true;
	let down = true;
	for (let i = start + 1; i < digits.length; i++) {
		const step = digits.charCodeAt(i) - digits.charCodeAt(i - 1);
		if (step !== 0) repeated = false;
		// 9 then 0 only at the end: 01234567890 ends so
		if (step !== 1 && !(step === -9 && i === digits.length - 1)) up = false;
		if (step !== -1) down = false;
	}
	return repeated || up || down;
}

const [ZERO, NINE, PLUS] = ['0', '9', '+'].map((char) => char.charCodeAt(0));

/** The digits of `text`: the text itself (after its "+") when it holds nothing else, as requests give phones (no copy). */
function digitsOf(text: string): string {
	const from = text.charCodeAt(0) === PLUS ? 1 : 0;
	for (let i = from; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < ZERO || code > NINE) return text.replace(/\D/g, '');
	}
	return from === 0 ? text : text.slice(1);
}

/** The phone as compared: the digits of its international form; undefined when it identifies nobody. */
export function normalisePhone(value: unknown): string | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	let digits = digitsOf(text);
	const international = text.startsWith('+') || digits.startsWith('00');
	if (!international && digits.length === 10) digits = `1${digits}`;
	else if (digits.startsWith('00') && !text.startsWith('+')) digits = digits.slice(2);
	return digits.length >= MIN_PHONE_DIGITS && !isPlaceholderPhone(digits) ? digits : undefined;
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
