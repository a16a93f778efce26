/**
 * Compact, JSON-safe memories of ids for the trigger's state. An id is remembered as the first 6 bytes
 * of its SHA-256, written as 8 base64url characters, so a remembered id costs 8 bytes of static data
 * whatever its length, and no id is stored in clear. Two different ids share a code with probability
 * 2^-48 per pair: with 50,000 codes remembered, a new id collides with one of them about once in 5
 * billion lookups (the effect would be one missed re-report, never a crash).
 *
 * `KeySet`: ids processed at a given timestamp, above a list's floor (ties and late rows at the
 * boundary). Grouped by timestamp so that pruning below a new floor is a key deletion.
 */
import * as crypto from 'node:crypto';

export const CODE_LENGTH = 8;

/** SHA-256 of a text in base64url: Node's one-shot hash where it has one (20.12 and later: several times faster), else a Hash object. */
const sha256 = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;
export const sha256Base64url: (text: string) => string = sha256
	? (text) => sha256('sha256', text, 'base64url')
	: (text) => crypto.createHash('sha256').update(text).digest('base64url');

/** The 8-character code of an id: its first 6 bytes of SHA-256. */
export function codeOf(id: string): string {
	return sha256Base64url(id).slice(0, CODE_LENGTH);
}

export function splitCodes(packed: string): string[] {
	const codes: string[] = [];
	for (let at = 0; at + CODE_LENGTH <= packed.length; at += CODE_LENGTH) codes.push(packed.slice(at, at + CODE_LENGTH));
	return codes;
}

const CODE_RE = /^(?:[A-Za-z0-9_-]{8})*$/;

/** Whether a stored string is a valid run of codes. */
export function isPackedCodes(value: unknown): value is string {
	return typeof value === 'string' && CODE_RE.test(value);
}

/** Stored form of a KeySet: timestamp (ms, as a decimal string) → concatenated codes. */
export type PackedKeys = Record<string, string>;

/** Ids (as codes) by timestamp. */
export class KeySet {
	private readonly byTime = new Map<number, Set<string>>();

	static decode(packed: PackedKeys | undefined): KeySet {
		const set = new KeySet();
		for (const [time, codes] of Object.entries(packed ?? {})) {
			const ms = Number(time);
			if (!Number.isFinite(ms)) continue;
			for (const code of splitCodes(codes)) set.addCode(ms, code);
		}
		return set;
	}

	private addCode(ms: number, code: string): void {
		let codes = this.byTime.get(ms);
		if (!codes) this.byTime.set(ms, (codes = new Set()));
		codes.add(code);
	}

	add(ms: number, id: string): void {
		this.addCode(ms, codeOf(id));
	}

	has(ms: number, id: string): boolean {
		return this.byTime.get(ms)?.has(codeOf(id)) ?? false;
	}

	/** A copy keeping only the timestamps above `floor`. */
	above(floor: number): KeySet {
		const copy = new KeySet();
		for (const [ms, codes] of this.byTime) if (ms > floor) for (const code of codes) copy.addCode(ms, code);
		return copy;
	}

	get size(): number {
		let size = 0;
		for (const codes of this.byTime.values()) size += codes.size;
		return size;
	}

	/** The lowest and highest timestamps held (undefined when empty). */
	span(): { min: number; max: number } | undefined {
		const times = [...this.byTime.keys()];
		return times.length === 0 ? undefined : { min: Math.min(...times), max: Math.max(...times) };
	}

	/** A copy keeping the timestamps above `floor`, without the ids of `other`. */
	aboveWithout(floor: number, other: KeySet): KeySet {
		const copy = new KeySet();
		for (const [ms, codes] of this.byTime) {
			if (ms <= floor) continue;
			const drop = other.byTime.get(ms);
			for (const code of codes) if (!drop?.has(code)) copy.addCode(ms, code);
		}
		return copy;
	}

	/** Adds every id of `other`. */
	merge(other: KeySet): void {
		for (const [ms, codes] of other.byTime) for (const code of codes) this.addCode(ms, code);
	}

	encode(): PackedKeys {
		const out: PackedKeys = {};
		for (const ms of [...this.byTime.keys()].sort((a, b) => a - b)) out[String(ms)] = [...(this.byTime.get(ms) as Set<string>)].join('');
		return out;
	}
}
