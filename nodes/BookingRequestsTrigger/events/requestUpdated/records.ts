/**
 * What Request Updated remembers of each watched request, packed for the static data:
 * one record per request in one comma-separated string, the status and lead status values in a shared
 * list (`values`), and where the rotation over older pages goes on (`cursor`). Bounded by "Watch the
 * Newest (Requests)" (at most 5,000 records). Pure and JSON-safe; decoded once per poll, encoded once.
 *
 * A record: id code (8, state/keySet.ts `codeOf`) · rank (5: the request's place counted from the END of the
 * list, stable while requests are added at the top) · updated_at ms (7, or `.`) · status and lead
 * status (3 each: an index in `values`, or `.`) · completed_at (7: ms or `#` + a hash, or `.`) · notes
 * hash (4, or `.`) · the sealed contact (contactSeal.ts; empty when not known) · `~` and the change
 * chain (6) when the record has one: the link that names a change made without moving `updated_at`
 * (changes.ts), so that a flip back and forth gets a new id each time.
 */
import { decodeNumber, encodeNumber } from '../../state/numbers';
import { codeOf } from '../../state/keySet';
import { unseal } from './contactSeal';
import type { Contact, Watched } from './fields';

export interface UpdatesState {
	/** Server time Request Updated started watching (its first poll remembers without reporting). */
	from: number;
	/** Rank where the next poll's rotation starts reading downward (absent: just below page 1). */
	cursor?: number;
	/** The status and lead status values the records point to. */
	values: string[];
	/** The records, comma-separated. */
	records: string;
}

export interface WatchedRecord {
	rank: number;
	updatedAt: number | null;
	watched: Omit<Watched, 'contact'>;
	/** The sealed contact as stored ('' when not known). */
	sealed: string;
	/** The last link of the chain of changes named by a hash (absent until the first one). */
	chain?: string;
}

/** Distinct status / lead status values an index (3 characters) can point to: more than 5,000 records hold. */
const MAX_VALUES = 64 ** 3;

const NUM = '[A-Za-z0-9_-]';
const RECORD_RE = new RegExp(`^(${NUM}{8})(${NUM}{5})(${NUM}{7}|\\.)(${NUM}{3}|\\.)(${NUM}{3}|\\.)(${NUM}{7}|#${NUM}{6}|\\.)(${NUM}{4}|\\.)(${NUM}*)(?:~(${NUM}{6}))?$`);

/** Whether a stored `updates` value is well formed (state/codec.ts reads it back only then). */
export function isUpdatesState(raw: unknown): raw is UpdatesState {
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
	const state = raw as Record<string, unknown>;
	if (typeof state.from !== 'number' || !Number.isFinite(state.from)) return false;
	if (state.cursor !== undefined && !(Number.isInteger(state.cursor) && (state.cursor as number) >= 0)) return false;
	if (!Array.isArray(state.values) || state.values.length > MAX_VALUES || !state.values.every((value) => typeof value === 'string')) return false;
	if (typeof state.records !== 'string') return false;
	if (state.records === '') return true;
	for (const record of state.records.split(',')) {
		const match = RECORD_RE.exec(record);
		if (!match) return false;
		for (const index of [match[4], match[5]]) if (index !== '.' && decodeNumber(index) >= state.values.length) return false;
	}
	return true;
}

/** The watched requests this trigger has read, by id code. */
export class UpdatesMemory {
	cursor: number | undefined;
	/** Undefined for a memory that starts in this poll. */
	from: number | undefined;
	private readonly records = new Map<string, WatchedRecord>();

	/** A copy to change (the memory a poll starts from is never changed). */
	clone(): UpdatesMemory {
		const copy = new UpdatesMemory();
		copy.cursor = this.cursor;
		copy.from = this.from;
		for (const [code, record] of this.records) copy.records.set(code, record);
		return copy;
	}

	static decode(state: UpdatesState | undefined): UpdatesMemory {
		const memory = new UpdatesMemory();
		if (!state) return memory;
		memory.cursor = state.cursor;
		memory.from = state.from;
		const value = (index: string) => (index === '.' ? null : (state.values[decodeNumber(index)] ?? null));
		for (const record of state.records === '' ? [] : state.records.split(',')) {
			const match = RECORD_RE.exec(record);
			if (!match) continue;
			const [, code, rank, updated, status, lead, completed, notes, sealed, chain] = match;
			memory.records.set(code, {
				rank: decodeNumber(rank),
				updatedAt: updated === '.' ? null : decodeNumber(updated),
				watched: {
					status: value(status),
					lead_status: value(lead),
					completed: completed === '.' ? null : completed.startsWith('#') ? completed : String(decodeNumber(completed)),
					notes: notes === '.' ? null : notes,
				},
				sealed,
				...(chain !== undefined ? { chain } : {}),
			});
		}
		return memory;
	}

	get size(): number {
		return this.records.size;
	}

	get(id: string): WatchedRecord | undefined {
		return this.records.get(codeOf(id));
	}

	/** The record's contact, read back with the request's id; undefined when not known. */
	static contactOf(id: string, record: WatchedRecord): Contact | undefined {
		return record.sealed === '' ? undefined : unseal(id, record.sealed);
	}

	set(id: string, record: WatchedRecord): void {
		this.records.set(codeOf(id), record);
	}

	/** Forgets the requests below `rank` (they left the watched range: newer requests pushed them out). */
	forgetBelow(rank: number): number {
		let forgotten = 0;
		for (const [code, record] of this.records) {
			if (record.rank >= rank) continue;
			this.records.delete(code);
			forgotten++;
		}
		return forgotten;
	}

	encode(from: number): UpdatesState {
		const values: string[] = [];
		const indexOf = new Map<string, number>();
		const index = (value: string | null): string => {
			if (value === null) return '.';
			let at = indexOf.get(value);
			if (at === undefined) {
				at = values.length;
				values.push(value);
				indexOf.set(value, at);
			}
			return encodeNumber(at, 3);
		};
		const records: string[] = [];
		for (const [code, record] of [...this.records].sort((a, b) => b[1].rank - a[1].rank)) {
			const { watched } = record;
			const completed = watched.completed === null ? '.' : watched.completed.startsWith('#') ? watched.completed : encodeNumber(Number(watched.completed), 7);
			records.push(
				code +
					encodeNumber(record.rank, 5) +
					(record.updatedAt === null ? '.' : encodeNumber(record.updatedAt, 7)) +
					index(watched.status) +
					index(watched.lead_status) +
					completed +
					(watched.notes ?? '.') +
					record.sealed +
					(record.chain !== undefined ? `~${record.chain}` : ''),
			);
		}
		return { from, ...(this.cursor !== undefined ? { cursor: this.cursor } : {}), values, records: records.join(',') };
	}
}
