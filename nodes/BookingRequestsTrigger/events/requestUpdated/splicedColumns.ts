/**
 * Request Updated's columns written again from the ones stored before, rather than whole
 * (recordColumns.ts `toColumns`): when newer requests push the oldest out of the watched range and
 * only records near the top changed, the records below the changes keep their stored text. Only the
 * records from the top down to the lowest change (the head) are written; the rest is cut out of the
 * columns before, and the oldest that left are dropped. The status and lead indexes follow first
 * appearance, so those two short columns are mapped again when the values' order moved.
 *
 * The result is byte for byte what `toColumns` gives for all the rows (head, then the rows kept), which
 * test/nodes/BookingRequestsTrigger/updates/splicedColumns.unit.test.ts holds it to; the ranks and the
 * nullable columns go through the writers `toColumns` uses (RankRuns, NullableText). The stored form it
 * starts from must be in the order `toColumns` is given rows (highest rank first): the caller knows.
 */
import { decodeNumberAt, encodeNumber } from '../../state/numbers';
import type { RecordColumns, RecordRow } from './recordColumns';
import { ID_LENGTH, indexWidth, NULL, NULLS, NullableText, RANK, RankRuns, RUN, valueSlots, WIDTHS } from './recordColumns';

/** A stored form: the columns and the values their status and lead indexes point to. */
export interface StoredColumns {
	columns: RecordColumns;
	values: string[];
}

/**
 * The rows of a stored form that stay as they were: those ranked below `top` and above `cut`, `count`
 * of them (a check: the caller counts its records in that range), and the ids of those read in the edge,
 * in their order.
 */
export interface KeptRows {
	top: number;
	cut: number;
	count: number;
	edge: string[];
}

/** The kept rows' places in the stored form: [from, to). */
interface Span {
	from: number;
	to: number;
}

/** Where the kept rows are in the stored ranks (highest first), their ranks given to `runs`. */
function keptSpan(ranks: string, kept: KeptRows, runs: RankRuns): Span {
	const span = { from: 0, to: 0 };
	for (let at = 0; at < ranks.length; at += RANK + RUN) {
		const top = decodeNumberAt(ranks, at, RANK);
		const length = decodeNumberAt(ranks, at + RANK, RUN);
		const above = Math.min(length, Math.max(0, top - kept.top + 1));
		const over = Math.max(above, Math.min(length, top - kept.cut));
		for (let i = above; i < over; i++) runs.push(top - i);
		span.from += above;
		span.to += over;
	}
	return span;
}

/** The kept rows of a stored nullable column: the nulls before their first value, the text from it to their last, the nulls after. */
function keptNullable(text: string, width: number, span: Span): { lead: number; body: string; trail: number } {
	let row = 0;
	let at = 0;
	let lead = 0;
	let trail = 0;
	let first = -1;
	let end = -1;
	while (row < span.to && at < text.length) {
		const char = text[at];
		const isValue = char !== NULL && char !== NULLS;
		const length = isValue ? width : char === NULL ? 1 : 1 + RUN;
		if (isValue) {
			if (row >= span.from) {
				if (first < 0) first = at;
				end = at + length;
				trail = 0;
			}
			row += 1;
		} else {
			const count = char === NULL ? 1 : decodeNumberAt(text, at + 1, RUN);
			const inside = Math.max(0, Math.min(row + count, span.to) - Math.max(row, span.from));
			if (first < 0) lead += inside;
			else trail += inside;
			row += count;
		}
		at += length;
	}
	return first < 0 ? { lead, body: '', trail: 0 } : { lead, body: text.slice(first, end), trail };
}

function splicedNullable(head: Array<string | null>, stored: string, width: number, span: Span): string {
	const out = new NullableText();
	for (const value of head) out.value(value);
	const kept = keptNullable(stored, width, span);
	out.addNulls(kept.lead);
	if (kept.body !== '') out.verbatim(kept.body);
	out.addNulls(kept.trail);
	return out.text();
}

/** How the stored indexes read in the new values: `next[index before]` (-1: not among them). */
interface IndexMap {
	next: Int32Array;
	before: number;
	after: number;
}

/** A kept part of an index column, its indexes pointing into the new values. */
function keptIndexes(stored: string, span: Span, map: IndexMap): string {
	const identity = map.before === map.after && map.next.every((index, at) => index === -1 || index === at);
	if (identity) return stored.slice(span.from * map.before, span.to * map.before);
	const codes = Array.from(map.next, (index) => (index < 0 ? '' : encodeNumber(index, map.after)));
	// Written into bytes (the alphabet is ASCII): no string per row.
	const out = Buffer.allocUnsafe((span.to - span.from) * map.after);
	let at = 0;
	for (let row = span.from; row < span.to; row++) {
		const code = codes[decodeNumberAt(stored, row * map.before, map.before)];
		for (let i = 0; i < code.length; i++) out[at++] = code.charCodeAt(i);
	}
	return out.toString('latin1', 0, at);
}

/** The values in order of first appearance (statuses, then lead statuses: as `toColumns`), and both index columns. */
function indexColumns(base: StoredColumns, head: RecordRow[], span: Span): { values: string[]; status: string; lead: string } {
	const { values, indexOf, slot } = valueSlots();
	const before = indexWidth(base.values.length);
	const keptSlots = (stored: string) => {
		const seen = new Uint8Array(base.values.length + 1);
		for (let row = span.from; row < span.to; row++) {
			const index = decodeNumberAt(stored, row * before, before);
			if (seen[index] === 1) continue;
			seen[index] = 1;
			slot(index === 0 ? null : base.values[index - 1]);
		}
	};
	const status = head.map((row) => slot(row.status));
	keptSlots(base.columns.status);
	const lead = head.map((row) => slot(row.lead));
	keptSlots(base.columns.lead);
	const after = indexWidth(values.length);
	const next = Int32Array.from({ length: base.values.length + 1 }, (_, index) => (index === 0 ? 0 : (indexOf.get(base.values[index - 1]) ?? -1)));
	const map = { next, before, after };
	const written = (indexes: number[], stored: string) => indexes.map((index) => encodeNumber(index, after)).join('') + keptIndexes(stored, span, map);
	return { values, status: written(status, base.columns.status), lead: written(lead, base.columns.lead) };
}

/** The kept rows of the stored contacts (comma-separated; absent: all empty), and whether one is not empty. */
function keptContacts(stored: string | undefined, span: Span): { text: string; any: boolean } {
	const count = span.to - span.from;
	if (count === 0) return { text: '', any: false };
	if (stored === undefined) return { text: ','.repeat(count - 1), any: false };
	let start = 0;
	for (let row = 0; row < span.from; row++) start = stored.indexOf(',', start) + 1;
	let last = start;
	for (let row = 1; row < count; row++) last = stored.indexOf(',', last) + 1;
	const comma = stored.indexOf(',', last);
	const end = comma < 0 ? stored.length : comma;
	return { text: stored.slice(start, end), any: end - start > count - 1 };
}

/** The optional columns: the contacts when one is kept, the edge ids when a row is read in the edge. */
function optionalColumns(base: StoredColumns, head: RecordRow[], kept: KeptRows, span: Span): Pick<RecordColumns, 'contacts' | 'edge'> {
	const out: Pick<RecordColumns, 'contacts' | 'edge'> = {};
	const contacts = keptContacts(base.columns.contacts, span);
	if (contacts.any || head.some((row) => row.contact !== '')) {
		const written = head.map((row) => row.contact).join(',');
		out.contacts = head.length > 0 && span.to > span.from ? `${written},${contacts.text}` : written + contacts.text;
	}
	const edge = head.filter((row) => row.edge === true);
	if (edge.length > 0 || kept.edge.length > 0) out.edge = edge.map((row) => row.id).join('') + kept.edge.join('');
	return out;
}

/**
 * The columns of `head` (in order, each ranked at or above `kept.top`) followed by the kept rows of
 * `base`; undefined when `base` does not hold `kept.count` rows in that range (then write them whole).
 */
export function splicedColumns(base: StoredColumns, head: RecordRow[], kept: KeptRows): StoredColumns | undefined {
	const runs = new RankRuns();
	for (const row of head) runs.push(row.rank);
	const span = keptSpan(base.columns.ranks, kept, runs);
	if (span.to - span.from !== kept.count) return undefined;
	const { values, status, lead } = indexColumns(base, head, span);
	const nullable = (field: keyof typeof WIDTHS) =>
		splicedNullable(
			head.map((row) => row[field]),
			base.columns[field],
			WIDTHS[field],
			span,
		);
	const columns: RecordColumns = {
		ranks: runs.text(),
		ids: head.map((row) => row.id).join('') + base.columns.ids.slice(span.from * ID_LENGTH, span.to * ID_LENGTH),
		status,
		lead,
		updated: nullable('updated'),
		completed: nullable('completed'),
		notes: nullable('notes'),
		chain: nullable('chain'),
		...optionalColumns(base, head, kept, span),
	};
	return { columns, values };
}
