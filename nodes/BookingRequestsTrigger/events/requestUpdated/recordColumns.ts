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
const RANK = 5;
const RUN = 3;
const RUN_MAX = 64 ** RUN - 1;
/** A null; NULL_RUN_FROM nulls or more in a row are `*` and their count (RUN characters). */
const NULL = '.';
const NULLS = '*';
const NULL_RUN_FROM = 4;
const WIDTHS = { updated: 3, completed: 7, notes: 4, chain: 6 } as const;
const CODE = /^[A-Za-z0-9_-]*$/;
/** A sealed contact (contactSeal.ts), or `^` and one in the form before it (read back, then sealed again). */
const SEALED = /^\^?[A-Za-z0-9_-]*$/;
const COMPLETED = /^(?:[A-Za-z0-9_-]{7}|#[A-Za-z0-9_-]{6})$/;

/** Characters of an index into `values` (plus 1): 1 while fewer than 63 values. */
const indexWidth = (values: number): number => (values + 1 < 64 ? 1 : values + 1 < 4096 ? 2 : 3);

/** A nullable column: values as they are, nulls as `.` or, NULL_RUN_FROM or more in a row, as a run. */
function nullable(values: Array<string | null>): string {
	let out = '';
	for (let i = 0; i < values.length; ) {
		const value = values[i];
		if (value !== null) {
			out += value;
			i++;
			continue;
		}
		let nulls = 0;
		while (i < values.length && values[i] === null && nulls < RUN_MAX) {
			nulls++;
			i++;
		}
		out += nulls >= NULL_RUN_FROM ? NULLS + encodeNumber(nulls, RUN) : NULL.repeat(nulls);
	}
	return out;
}

function readNullable(text: string, width: number, count: number, valid: (value: string) => boolean): Array<string | null> | undefined {
	const out: Array<string | null> = [];
	let at = 0;
	while (at < text.length && out.length <= count) {
		if (text[at] === NULL) {
			out.push(null);
			at += 1;
		} else if (text[at] === NULLS) {
			const run = text.slice(at + 1, at + 1 + RUN);
			if (run.length !== RUN || !CODE.test(run) || decodeNumber(run) < 1) return undefined;
			for (let i = decodeNumber(run); i > 0; i--) out.push(null);
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

/** The ranks column: runs of consecutive ranks (highest first), each its top rank and length. */
function rankRuns(ranks: number[]): string {
	let out = '';
	for (let i = 0; i < ranks.length; ) {
		let length = 1;
		while (i + length < ranks.length && ranks[i + length] === ranks[i] - length && length < RUN_MAX) length++;
		out += encodeNumber(ranks[i], RANK) + encodeNumber(length, RUN);
		i += length;
	}
	return out;
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

/** The columns of these rows (in this order); `values`: the status and lead status values they point to, in order of first appearance. */
export function toColumns(rows: RecordRow[]): { columns: RecordColumns; values: string[] } {
	const values: string[] = [];
	const indexOf = new Map<string, number>();
	const slot = (value: string | null) => (value === null ? 0 : (indexOf.get(value) ?? indexOf.set(value, values.push(value)).get(value)!));
	const status = rows.map((row) => slot(row.status));
	const lead = rows.map((row) => slot(row.lead));
	const width = indexWidth(values.length);
	const columns: RecordColumns = {
		ranks: rankRuns(rows.map((row) => row.rank)),
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
	return new Set(text.match(new RegExp(`.{${ID_LENGTH}}`, 'g')) ?? []);
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
