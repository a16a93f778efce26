/**
 * Request Updated's records as the state stores them (records.ts decides what a record holds): one
 * column per field, records in the same order in each (highest rank first), no separators.
 *
 * - `ranks`: runs of consecutive ranks, each its highest rank (5 characters) and length (3);
 * - `ids`: each request's id code (6 characters: the first 36 bits of state/keySet.ts `codeOf`);
 * - `status`, `lead`: an index into `values`, plus 1 (0: null), in 1 character while `values` holds
 *   fewer than 63 values (2 below 4,095, else 3);
 * - `updated` (3: a hash of `updated_at`), `completed` (7: ms, or `#` and a hash of 6), `notes` (4: a
 *   hash) and `chain` (6): fixed widths with nulls written `.`, or `*` and a count (3) for 4 or more;
 * - `contacts`: the sealed contacts, comma-separated ('' when not kept); absent when none is kept;
 * - `edge`: the id codes of the records read while their request was within EDGE_WINDOW_MS of the
 *   server's clock (their rank may still grow: rows committed late below them); absent when none is.
 *
 * Pure and JSON-safe. `parseColumns` checks everything and gives undefined for anything malformed.
 */
import { decodeNumber, encodeNumber } from '../../state/numbers';

/** One record's stored fields (null: none). */
export interface RecordRow {
	rank: number;
	id: string;
	updated: string | null;
	status: string | null;
	lead: string | null;
	completed: string | null;
	notes: string | null;
	chain: string | null;
	contact: string;
	/** Read within EDGE_WINDOW_MS of the server's clock: its rank may still grow (records.ts). */
	edge?: boolean;
}

export interface RecordColumns {
	ranks: string;
	ids: string;
	status: string;
	lead: string;
	updated: string;
	completed: string;
	notes: string;
	chain: string;
	contacts?: string;
	edge?: string;
}

export const ID_LENGTH = 6;
export const RANK = 5;
export const RUN = 3;
export const NULL = '.';
export const NULLS = '*';
const NULL_RUN_FROM = 4;
export const WIDTHS = { updated: 3, completed: 7, notes: 4, chain: 6 } as const;
const CODE = /^[A-Za-z0-9_-]*$/;
/** A sealed contact (contactSeal.ts), or `^` and one in the form before it (read back, then sealed again). */
const SEALED = /^\^?[A-Za-z0-9_-]*$/;
const COMPLETED = /^(?:[A-Za-z0-9_-]{7}|#[A-Za-z0-9_-]{6})$/;

/** Characters of an index into `values` (plus 1): 1 while fewer than 63 values. */
export const indexWidth = (values: number): number => (values + 1 < 64 ? 1 : values + 1 < 4096 ? 2 : 3);

const RUN_MAX = 64 ** RUN - 1;

/** A nullable column: values and single nulls as they are, NULL_RUN_FROM nulls or more as a run; given in pieces. */
export class NullableText {
	private out = '';
	private nulls = 0;

	value(value: string | null): void {
		if (value === null) this.addNulls(1);
		else this.verbatim(value);
	}

	addNulls(count: number): void {
		this.nulls += count;
		while (this.nulls >= RUN_MAX) {
			this.out += NULLS + encodeNumber(RUN_MAX, RUN);
			this.nulls -= RUN_MAX;
		}
	}

	/** Stored text that starts and ends with a value. */
	verbatim(text: string): void {
		this.flush();
		this.out += text;
	}

	text(): string {
		this.flush();
		return this.out;
	}

	private flush(): void {
		this.out += this.nulls >= NULL_RUN_FROM ? NULLS + encodeNumber(this.nulls, RUN) : NULL.repeat(this.nulls);
		this.nulls = 0;
	}
}

function readNullable(text: string, width: number, count: number, valid: (value: string) => boolean): Array<string | null> | undefined {
	const out: Array<string | null> = [];
	let at = 0;
	while (at < text.length && out.length <= count) {
		if (text[at] === NULL) {
			out.push(null);
			at += 1;
		} else if (text[at] === NULLS) {
			const run = decodeNumber(text.slice(at + 1, at + 1 + RUN));
			if (!CODE.test(text.slice(at + 1, at + 1 + RUN)) || run < 1) return undefined;
			for (let i = 0; i < run; i++) out.push(null);
			at += 1 + RUN;
		} else {
			const value = text.slice(at, at + width);
			if (value.length !== width || !valid(value)) return undefined;
			out.push(value);
			at += width;
		}
	}
	return out.length === count && at === text.length ? out : undefined;
}

/** The ranks column: runs of consecutive ranks (highest first), given one rank at a time. */
export class RankRuns {
	private out = '';
	private top = 0;
	private length = 0;

	push(rank: number): void {
		if (this.length > 0 && rank === this.top - this.length && this.length < RUN_MAX) {
			this.length++;
			return;
		}
		this.close();
		this.top = rank;
		this.length = 1;
	}

	text(): string {
		this.close();
		return this.out;
	}

	private close(): void {
		if (this.length > 0) this.out += encodeNumber(this.top, RANK) + encodeNumber(this.length, RUN);
		this.length = 0;
	}
}

function readRanks(text: string): number[] | undefined {
	if (text.length % (RANK + RUN) !== 0 || !CODE.test(text)) return undefined;
	const ranks: number[] = [];
	for (let at = 0; at < text.length; at += RANK + RUN) {
		const top = decodeNumber(text.slice(at, at + RANK));
		const length = decodeNumber(text.slice(at + RANK, at + RANK + RUN));
		if (length < 1 || length > top + 1) return undefined;
		for (let i = 0; i < length; i++) ranks.push(top - i);
	}
	return ranks;
}

function nullable(values: Array<string | null>): string {
	const out = new NullableText();
	for (const value of values) out.value(value);
	return out.text();
}

function rankRuns(rows: RecordRow[]): string {
	const runs = new RankRuns();
	for (const row of rows) runs.push(row.rank);
	return runs.text();
}

/** Status and lead values in order of first appearance: `slot` gives a value's index plus 1 (0: null), adding it when new. */
export function valueSlots(): { values: string[]; indexOf: Map<string, number>; slot: (value: string | null) => number } {
	const values: string[] = [];
	const indexOf = new Map<string, number>();
	const slot = (value: string | null) => {
		if (value === null) return 0;
		let at = indexOf.get(value);
		if (at === undefined) indexOf.set(value, (at = values.push(value)));
		return at;
	};
	return { values, indexOf, slot };
}

/** The columns of these rows (in this order); `values`: the status and lead status values they point to, made here. */
export function toColumns(rows: RecordRow[]): { columns: RecordColumns; values: string[] } {
	const { values, slot } = valueSlots();
	const status = rows.map((row) => slot(row.status));
	const lead = rows.map((row) => slot(row.lead));
	const width = indexWidth(values.length);
	const columns: RecordColumns = {
		ranks: rankRuns(rows),
		ids: rows.map((row) => row.id).join(''),
		status: status.map((index) => encodeNumber(index, width)).join(''),
		lead: lead.map((index) => encodeNumber(index, width)).join(''),
		updated: nullable(rows.map((row) => row.updated)),
		completed: nullable(rows.map((row) => row.completed)),
		notes: nullable(rows.map((row) => row.notes)),
		chain: nullable(rows.map((row) => row.chain)),
	};
	if (rows.some((row) => row.contact !== '')) columns.contacts = rows.map((row) => row.contact).join(',');
	if (rows.some((row) => row.edge === true)) columns.edge = rows.filter((row) => row.edge === true).map((row) => row.id).join('');
	return { columns, values };
}

function readIndexes(text: unknown, count: number, values: string[]): Array<string | null> | undefined {
	const width = indexWidth(values.length);
	if (typeof text !== 'string' || text.length !== count * width || !CODE.test(text)) return undefined;
	const out: Array<string | null> = [];
	for (let at = 0; at < text.length; at += width) {
		const index = decodeNumber(text.slice(at, at + width));
		if (index > values.length) return undefined;
		out.push(index === 0 ? null : values[index - 1]);
	}
	return out;
}

const isText = (value: unknown): value is string => typeof value === 'string';

/** The id codes of the `edge` column (empty when absent); undefined when malformed. */
function readEdge(text: unknown): Set<string> | undefined {
	if (text === undefined) return new Set();
	if (!isText(text) || text.length % ID_LENGTH !== 0 || !CODE.test(text)) return undefined;
	const codes = new Set<string>();
	for (let at = 0; at < text.length; at += ID_LENGTH) codes.add(text.slice(at, at + ID_LENGTH));
	return codes;
}

/** The rows of stored columns; undefined when anything is malformed. */
export function parseColumns(raw: Record<string, unknown>, values: string[]): RecordRow[] | undefined {
	const { ranks: rankText, ids, updated, completed, notes, chain, contacts } = raw;
	if (![rankText, ids, updated, completed, notes, chain].every(isText) || (contacts !== undefined && !isText(contacts))) return undefined;
	const ranks = readRanks(rankText as string);
	const count = ranks?.length ?? 0;
	if (!ranks || (ids as string).length !== count * ID_LENGTH || !CODE.test(ids as string)) return undefined;
	const columns = {
		status: readIndexes(raw.status, count, values),
		lead: readIndexes(raw.lead, count, values),
		updated: readNullable(updated as string, WIDTHS.updated, count, (value) => CODE.test(value)),
		completed: readNullable(completed as string, WIDTHS.completed, count, (value) => COMPLETED.test(value)),
		notes: readNullable(notes as string, WIDTHS.notes, count, (value) => CODE.test(value)),
		chain: readNullable(chain as string, WIDTHS.chain, count, (value) => CODE.test(value)),
	};
	const sealed = contacts === undefined ? Array<string>(count).fill('') : (contacts as string).split(',');
	const edge = readEdge(raw.edge);
	if (!edge || Object.values(columns).some((column) => column === undefined) || sealed.length !== count || !sealed.every((text) => SEALED.test(text))) return undefined;
	const { status, lead } = columns as Record<string, Array<string | null>>;
	return ranks.map((rank, i) => ({
		rank,
		id: (ids as string).slice(i * ID_LENGTH, (i + 1) * ID_LENGTH),
		updated: columns.updated![i],
		status: status[i],
		lead: lead[i],
		completed: columns.completed![i],
		notes: columns.notes![i],
		chain: columns.chain![i],
		contact: sealed[i],
		...(edge.has((ids as string).slice(i * ID_LENGTH, (i + 1) * ID_LENGTH)) ? { edge: true } : {}),
	}));
}
