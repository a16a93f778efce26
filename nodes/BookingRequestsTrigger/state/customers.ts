/**
 * What the trigger remembers about customers (not sessions): reminders go to people.
 * A customer is known by the keys of nodes/shared/customer.ts (`e:<email>`, `p:<digits>`), each
 * remembered only as its 8-character code (keySet.ts `codeOf`: SHA-256, never in clear).
 *
 * - Who booked (Skip Customers Who Booked): events/skipBooked.ts.
 * - `RemindedMemory` (cooldown and recovery): per customer, the last Session Abandoned event this
 *   trigger reported — the session id (needed in clear for `recovered_from_session_id`, as 22
 *   base64url characters), its last activity and the event time — for REMINDED_RETENTION_DAYS (days
 *   forgotten whole too; the cooldown and the recovery window compare the times themselves), at most
 *   REMINDED_LIMIT customers. Stored by UTC day of the event: day → comma-separated records of
 *   key codes (2 × 8; "........" when the customer has one key) + event ms of the day (5) + idle
 *   seconds (5) + session id (22), 49 characters per customer.
 *
 * Past a bound, the oldest entries are forgotten (within a day too) and the node logs a warning (never a crash). Pure
 * and JSON-safe.
 */
import { customerKeys, normaliseEmail, normalisePhone } from '../../shared/customer';
import { ALPHABET, decodeNumber, encodeNumber } from './numbers';
import { DayBuckets, type DayPacker } from './dayBuckets';
import { codeOf } from './keySet';
import { DAY_MS, dayOf } from './seen';

/** A reported abandonment is remembered this long: the recovery window and the longest cooldown. */
export const REMINDED_RETENTION_DAYS = 30;
/** At most this many customers remembered as reminded (49 characters each: 2.45 MB at the bound). */
const REMINDED_LIMIT = 50_000;

const NO_KEY = '........';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A session id in 22 characters (a UUID, as the contract says), else `~` + the id escaped. */
export function packId(id: string): string {
	if (!UUID_RE.test(id)) return `~${encodeURIComponent(id)}`;
	let value = BigInt(`0x${id.replace(/-/g, '')}`);
	let out = '';
	for (let i = 0; i < 22; i++) {
		out = ALPHABET[Number(value % 64n)] + out;
		value /= 64n;
	}
	return out;
}

export function unpackId(packed: string): string {
	if (packed.startsWith('~')) return decodeURIComponent(packed.slice(1));
	let value = 0n;
	for (const char of packed) value = value * 64n + BigInt(ALPHABET.indexOf(char));
	const hex = value.toString(16).padStart(32, '0');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * More distinct e-mails than this on one phone number, among the bookings a poll reads, make the phone
 * shared (an office or front-desk number): it identifies nobody for Skip, the cooldown and `recovered`,
 * for 30 days.
 */
export const MAX_EMAILS_PER_PHONE = 3;

/** The codes of the phones shared by more than MAX_EMAILS_PER_PHONE e-mails in these bookings. */
export function sharedPhoneCodes(bookings: Iterable<{ email?: unknown; phone?: unknown }>): Set<string> {
	// Each phone's bookings (by place): a phone read in fewer bookings than that cannot be shared, so only
	// the e-mails of the few phones read often are normalised (every poll reads hundreds of bookings).
	const emails: unknown[] = [];
	const places = new Map<string, number | number[]>();
	for (const booking of bookings) {
		if (typeof booking.email !== 'string') continue;
		const phone = normalisePhone(booking.phone);
		if (!phone) continue;
		const place = emails.push(booking.email) - 1;
		const known = places.get(phone);
		if (known === undefined) places.set(phone, place);
		else if (typeof known === 'number') places.set(phone, [known, place]);
		else known.push(place);
	}
	const shared: Array<{ first: number; code: string }> = [];
	for (const [phone, known] of places) {
		if (typeof known === 'number' || known.length <= MAX_EMAILS_PER_PHONE) continue;
		const distinct = new Set<string>();
		let first = Infinity;
		for (const place of known) {
			const email = normaliseEmail(emails[place]);
			if (email === undefined) continue;
			distinct.add(email);
			first = Math.min(first, place);
		}
		// The phone's key as customerKeys writes it (one place for the key format): "+" keeps the digits as they are.
		if (distinct.size > MAX_EMAILS_PER_PHONE) shared.push({ first, code: customerCodes({ phone: `+${phone}` })[0] });
	}
	// In the order the phones first came with a usable e-mail.
	return new Set(shared.sort((a, b) => a.first - b.first).map(({ code }) => code));
}

/** The codes of a contact's customer keys (empty when it has neither a usable e-mail nor phone). */
export function customerCodes(contact: { email?: unknown; phone?: unknown } | undefined): string[] {
	return contact ? customerKeys(contact).map(codeOf) : [];
}

export type PackedDays = Record<string, string>;

const REMINDED_RECORD_RE = /^[A-Za-z0-9_-]{8}(?:[A-Za-z0-9_-]{8}|\.{8})[A-Za-z0-9_-]{10}(?:[A-Za-z0-9_-]{22}|~[^,]*)$/;

export function isPackedReminded(value: unknown): value is string {
	return typeof value === 'string' && (value === '' || value.split(',').every((record) => REMINDED_RECORD_RE.test(record)));
}

/** The last abandonment of a customer this trigger reported. */
export interface Reminder {
	/** Key codes of the customer (1 or 2). */
	codes: string[];
	sessionId: string;
	/** The session's last activity (`updated_at`, ms). */
	activity: number;
	/** Event time (ms): activity + the abandonment delay. */
	at: number;
}

/** A reminder's stored record: key codes (2 × 8) + event ms of the day (5) + idle seconds (5) + session id (22). */
function packReminder(record: Reminder): string {
	const day = dayOf(record.at);
	const codes = record.codes[0] + (record.codes[1] ?? NO_KEY);
	const idleSeconds = Math.max(0, Math.round((record.at - record.activity) / 1000));
	return codes + encodeNumber(record.at - day * DAY_MS, 5) + encodeNumber(idleSeconds, 5) + packId(record.sessionId);
}

/** A reminder as the memory holds it: with its stored record. */
type Stored = Reminder & { readonly text: string };

/** The distinct reminders of a day's entries (a reminder is under each of its codes it still holds). */
const remindersOf = (entries: ReadonlyMap<string, Stored>): Stored[] => [...new Set(entries.values())];

/** Oldest first, and by their stored text where they have one time (the same order however they were added). */
const byTime = (records: Stored[]): Stored[] => records.sort((a, b) => a.at - b.at || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));

/** A day of reminders, oldest first. */
const packReminded: DayPacker<Stored> = (entries) =>
	byTime(remindersOf(entries))
		.map((entry) => entry.text)
		.join(',');

/** Whether `a` is the newer reminder of a customer: the later event, or at one time the greater session id. */
function isNewer(a: Reminder, b: Reminder): boolean {
	return a.at > b.at || (a.at === b.at && a.sessionId > b.sessionId);
}

/** Customers this trigger reported abandoned: cooldown and recovery. */
export class RemindedMemory {
	/**
	 * Per key code, the newest reminder of a customer with that key, under the UTC day of its event. A
	 * reminder is kept while it is the newest for one of its keys.
	 */
	private readonly days = new DayBuckets<Stored>();
	/** Customers forgotten because of the bound in the last `prune`. */
	droppedForBound = 0;

	static decode(packed: PackedDays | undefined): RemindedMemory {
		const memory = new RemindedMemory();
		const days = Object.keys(packed ?? {})
			.map(Number)
			.filter(Number.isInteger)
			.sort((a, b) => a - b);
		for (const day of days) {
			const text = (packed as PackedDays)[String(day)];
			if (!text) continue;
			for (const record of text.split(',')) {
				const codes = [record.slice(0, 8), record.slice(8, 16)].filter((code) => code !== NO_KEY);
				const at = day * DAY_MS + decodeNumber(record.slice(16, 21));
				const activity = at - decodeNumber(record.slice(21, 26)) * 1000;
				memory.put({ codes, sessionId: unpackId(record.slice(26)), activity, at, text: record });
			}
		}
		return memory;
	}

	/**
	 * Remembers a reported abandonment: for each of its keys, it replaces an older one. Of two at the
	 * same time, the one with the greater session id stays, whichever came first: the memory is then
	 * the same whatever order its reminders were added in (a decoded state adds them in stored order,
	 * a poll in the order it reports them).
	 */
	add(reminder: Reminder): void {
		this.put({ ...reminder, text: packReminder(reminder) });
	}

	private put(reminder: Stored): void {
		for (const code of reminder.codes) {
			const known = this.days.find(code);
			if (known && isNewer(known.value, reminder)) continue;
			if (known && known.day !== dayOf(reminder.at)) this.days.delete(known.day, code);
			this.days.set(dayOf(reminder.at), code, reminder);
		}
	}

	private detach(day: number, reminder: Stored): void {
		for (const code of reminder.codes) if (this.days.entries(day)?.get(code) === reminder) this.days.delete(day, code);
	}

	/** The newest reported abandonment of a customer with any of these key codes. */
	last(codes: string[]): Reminder | undefined {
		let last: Reminder | undefined;
		for (const code of codes) {
			const reminder = this.days.find(code)?.value;
			if (reminder && (!last || reminder.at > last.at)) last = reminder;
		}
		return last;
	}

	get size(): number {
		let size = 0;
		for (const day of this.days.dayNumbers()) size += remindersOf(this.days.entries(day) ?? new Map()).length;
		return size;
	}

	/** Key codes held (at most two per customer): counted without reading them. */
	get keys(): number {
		return this.days.size;
	}

	/** Forgets the days past the retention (whole, as BookedMemory does); over `limit`, the abandonments past the retention first, then the oldest ones (within a day too). */
	prune(now: number, limit = REMINDED_LIMIT): void {
		this.droppedForBound = 0;
		const oldest = now - REMINDED_RETENTION_DAYS * DAY_MS;
		this.days.dropDaysBefore(dayOf(oldest));
		// Each customer holds at least one key: within the bound by its keys, it is within it (not counted).
		const excessOf = () => (this.keys <= limit ? 0 : this.size - limit);
		let excess = excessOf();
		if (excess > 0) {
			// Over the bound, the abandonments already past the retention go first (expired, not dropped for the bound).
			this.days.deleteWhere(dayOf(oldest), (reminder) => reminder.at < oldest);
			excess = excessOf();
		}
		for (const day of this.days.dayNumbers()) {
			if (excess <= 0) break;
			const gone = byTime(remindersOf(this.days.entries(day) ?? new Map())).slice(0, excess);
			for (const record of gone) this.detach(day, record);
			this.droppedForBound += gone.length;
			excess -= gone.length;
		}
	}

	encode(): PackedDays {
		return this.days.encode(packReminded);
	}
}
