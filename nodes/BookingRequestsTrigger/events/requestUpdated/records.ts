/**
 * What Request Updated remembers of each watched request, in the state's `updates`: when it started
 * (`from`), the status and lead status values the records point to (`values`), and one record per
 * request, stored by field (recordColumns.ts). Bounded by "Watch the
 * Newest (Requests)" (at most 5,000 records). Pure and JSON-safe.
 *
 * A record: the request's rank (its place counted from the END of the list, stable while requests are
 * added at the top), its id as a 6-character code (with the rank: two requests whose codes collide are
 * told apart by their places), a 4-character hash of `updated_at` (only compared: moved or not), the
 * status and lead status, `completed_at` (ms, or `#` + a hash), a 4-character hash of the notes, the
 * sealed contact (contactSeal.ts; empty when not watched) and the change chain (6) once it has one: the
 * link that names a change made without moving `updated_at` (changes.ts), so that a flip back and forth
 * gets a new id each time. What `previous` reports (the earlier status, lead status, completion and
 * contact) is what a record keeps; the rest is hashes.
 *
 * A memory kept from poll to poll (poll/memory.ts) keeps its stored form until a record changes, and
 * remembers in this process only the fields it read last of each request, so that an unchanged request
 * costs no hash and no cipher. The form before 0.2 (one comma-separated string of records with
 * 8-character codes) is read and written again in this one.
 */
import { codeOf, sha256Base64url } from '../../state/keySet';
import { decodeNumber, encodeNumber } from '../../state/numbers';
import type { Watched } from './fields';
import type { RecordColumns, RecordRow } from './recordColumns';
import { ID_LENGTH, parseColumns, toColumns } from './recordColumns';

export interface UpdatesState extends Partial<RecordColumns> {
	/** Server time Request Updated started watching (its first poll remembers without reporting). */
	from: number;
	/** Where the watched requests' rotation went on, as versions before 1 (this release) stored it: read into the state's `cursor`. */
	cursor?: number;
	/** The status and lead status values the records point to. */
	values: string[];
	/** The records as versions before 0.2 wrote them (comma-separated), read once and written again by field. */
	records?: string;
}

/**
 * A record: its stored fields (recordColumns.ts `RecordRow`: `contact` sealed, '' when not kept, `^` + the
 * form before 0.2 until it is sealed again; `chain` null until the first change named by a hash; `edge`
 * while its rank may still grow), and in this process only the request's fields as read last
 * (changes.ts `readingOf`): read again the same, the record holds as it is.
 */
export type WatchedRecord = RecordRow & { raw?: readonly unknown[] };

/** A record whose form is not yet the compact one: its contact is sealed again on its next read. */
export const LEGACY_SEAL = '^';

/** `updated_at` as a record keeps it: 3 characters of a hash (18 bits), only compared (a collision names a change by its hash chain instead). */
export const updatedHash = (ms: number): string => sha256Base64url(`updated_at:${ms}`).slice(0, 3);

/**
 * Places (ranks) a request may move by between two reads (late commits below it): its record is still
 * its own, and a record read in the edge is kept until this far below the watched range (or read again).
 */
const RANK_SLACK = 64;

export const idCode = (id: string) => codeOf(id).slice(0, ID_LENGTH);

const NUM = '[A-Za-z0-9_-]';
const LEGACY_RE = new RegExp(`^(${NUM}{8})(${NUM}{5})(${NUM}{7}|\\.)(${NUM}{3}|\\.)(${NUM}{3}|\\.)(${NUM}{7}|#${NUM}{6}|\\.)(${NUM}{4}|\\.)(${NUM}*)(?:~(${NUM}{6}))?$`);

/** The rows of the form before 0.2; undefined when malformed. */
function legacyRows(records: string, values: string[]): RecordRow[] | undefined {
	const rows: RecordRow[] = [];
	for (const record of records === '' ? [] : records.split(',')) {
		const match = LEGACY_RE.exec(record);
		if (!match) return undefined;
		const [, code, rank, updated, status, lead, completed, notes, sealed, chain] = match;
		const value = (index: string) => (index === '.' ? null : (values[decodeNumber(index)] ?? undefined));
		if (value(status) === undefined || value(lead) === undefined) return undefined;
		rows.push({
			rank: decodeNumber(rank),
			id: code.slice(0, ID_LENGTH),
			updated: updated === '.' ? null : updatedHash(decodeNumber(updated)),
			status: value(status) as string | null,
			lead: value(lead) as string | null,
			completed: completed === '.' ? null : completed,
			notes: notes === '.' ? null : notes,
			chain: chain ?? null,
			contact: sealed === '' ? '' : LEGACY_SEAL + sealed,
		});
	}
	return rows;
}

/** The stored rows of a state's `updates`; undefined when it is malformed. */
export function rowsOf(raw: unknown): RecordRow[] | undefined {
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
	const state = raw as Record<string, unknown>;
	if (typeof state.from !== 'number' || !Number.isFinite(state.from)) return undefined;
	if (state.cursor !== undefined && !(Number.isInteger(state.cursor) && (state.cursor as number) >= 0)) return undefined;
	if (!Array.isArray(state.values) || !state.values.every((value) => typeof value === 'string')) return undefined;
	if (state.records !== undefined) return typeof state.records === 'string' ? legacyRows(state.records, state.values as string[]) : undefined;
	return parseColumns(state, state.values as string[]);
}

/** Whether a stored `updates` value is well formed (state/codec.ts reads it back only then). */
export function isUpdatesState(raw: unknown): raw is UpdatesState {
	return rowsOf(raw) !== undefined;
}

/** The completed column of a watched `completed`: ms in 7 characters, or `#` and a hash (fields.ts `completedKey`). */
export const completedColumn = (completed: string | null): string | null => (completed === null || completed.startsWith('#') ? completed : encodeNumber(Number(completed), 7));

/** A record's watched values as fields.ts compares them (`completed` in ms, as text). */
export function watchedOfRecord(record: WatchedRecord): Omit<Watched, 'contact'> {
	const { completed } = record;
	return { status: record.status, lead_status: record.lead, notes: record.notes, completed: completed === null || completed.startsWith('#') ? completed : String(decodeNumber(completed)) };
}

/** Whether two records store the same (what this process remembers besides is not compared). */
function sameRecord(a: WatchedRecord, b: WatchedRecord): boolean {
	return (
		a.rank === b.rank &&
		a.id === b.id &&
		a.updated === b.updated &&
		a.contact === b.contact &&
		a.chain === b.chain &&
		a.edge === b.edge &&
		a.status === b.status &&
		a.lead === b.lead &&
		a.completed === b.completed &&
		a.notes === b.notes
	);
}

/** The order of the stored rows: highest rank first, then by id code. */
const byPlace = (a: RecordRow, b: RecordRow) => b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What a poll changes in the records (changes.ts decides it, `UpdatesMemory.apply` applies it). */
export interface UpdatesChange {
	/** Request Updated starts watching at this server time (its first poll). */
	from?: number;
	/** Each request read, with the record it replaces (found by code and rank before the poll). */
	records: Array<{ record: WatchedRecord; replaces?: WatchedRecord }>;
	/** The requests below this rank left the watched range: forgotten (after the records above are set). */
	forgetBelow?: number;
}

/** The watched requests this trigger has read, by id code (and rank). */
export class UpdatesMemory {
	/** Undefined for a memory that starts in this poll. */
	from: number | undefined;
	/** Records by id code: one, or the few whose codes collide (told apart by rank). */
	private readonly records = new Map<string, WatchedRecord | WatchedRecord[]>();
	private count = 0;
	/** The stored form of these records while none changed since it was read or written (a quiet poll writes none again). */
	private stored: ReturnType<typeof toColumns> | undefined;

	static decode(state: UpdatesState | undefined): UpdatesMemory {
		const memory = new UpdatesMemory();
		const rows = state && rowsOf(state);
		if (!state || !rows) return memory;
		memory.from = state.from;
		for (const row of rows) memory.add(row);
		// Read in the compact form: it stays the stored form until a record changes.
		if (state.records === undefined) memory.stored = toColumns(rows);
		return memory;
	}

	get size(): number {
		return this.count;
	}

	private entryOf(code: string, rank: number | undefined): WatchedRecord | undefined {
		const held = this.records.get(code);
		if (held === undefined) return undefined;
		const candidates = Array.isArray(held) ? held : [held];
		if (rank === undefined) return candidates[0];
		let best: WatchedRecord | undefined;
		for (const record of candidates) if (Math.abs(record.rank - rank) <= RANK_SLACK && (!best || Math.abs(record.rank - rank) < Math.abs(best.rank - rank))) best = record;
		return best;
	}

	/** The record of request `id`, read at `rank` (undefined: the page gave no list length). */
	get(id: string, rank?: number): WatchedRecord | undefined {
		return this.entryOf(idCode(id), rank);
	}

	private all(): WatchedRecord[] {
		return [...this.records.values()].flat();
	}

	private add(record: WatchedRecord): void {
		const held = this.records.get(record.id);
		this.records.set(record.id, held === undefined ? record : [...(Array.isArray(held) ? held : [held]), record]);
		this.count++;
	}

	private remove(record: WatchedRecord): void {
		const code = record.id;
		const held = this.records.get(code);
		const candidates = held === undefined ? [] : Array.isArray(held) ? held : [held];
		const rest = candidates.filter((candidate) => candidate !== record);
		if (rest.length === candidates.length) return;
		if (rest.length === 0) this.records.delete(code);
		else this.records.set(code, rest.length === 1 ? rest[0] : rest);
		this.count--;
		this.stored = undefined;
	}

	/** Applies a poll's change; returns how many requests it forgot (they left the watched range). */
	apply(change: UpdatesChange): number {
		if (change.from !== undefined) this.from = change.from;
		for (const { record, replaces } of change.records) this.set(record, replaces);
		return change.forgetBelow === undefined ? 0 : this.forgetBelow(change.forgetBelow);
	}

	/** Remembers what was read of a request (replacing its record, found by code and rank as read before). */
	private set(record: WatchedRecord, previous?: WatchedRecord): void {
		const known = previous ?? this.entryOf(record.id, record.rank);
		// The same stored record (what this process read besides may be newer): the stored form holds.
		const stored = known !== undefined && sameRecord(known, record) ? this.stored : undefined;
		if (known) this.remove(known);
		this.add(record);
		this.stored = stored;
	}

	/**
	 * Forgets the requests below `rank` (they left the watched range: newer requests pushed them out). A
	 * record read in the edge may be below it only by its rank as read (rows committed late below it since
	 * raised it): kept until RANK_SLACK below, or until read again.
	 */
	private forgetBelow(rank: number): number {
		const gone = this.all().filter((record) => record.rank < (record.edge === true ? rank - RANK_SLACK : rank));
		for (const record of gone) this.remove(record);
		return gone.length;
	}

	encode(from: number): UpdatesState {
		this.stored ??= toColumns(this.all().sort(byPlace));
		const { columns, values } = this.stored;
		return { from, values, ...columns };
	}
}
