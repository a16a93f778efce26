/**
 * Where the bytes of a trigger's static data are, read from its JSON alone (no knowledge of the
 * state's format, so that it reads any version of it): the largest parts, by path.
 */

export interface StatePart {
	/** Keys from the root, joined with dots. */
	path: string;
	/** Bytes of the part's JSON value. */
	bytes: number;
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '');

/**
 * Parts of `value` of at least `share` of its bytes, down to objects whose every child is smaller than
 * that (the part is then listed itself) or `depth` levels; largest first.
 */
export function largestParts(value: unknown, share = 0.05, depth = 4): StatePart[] {
	const total = bytesOf(value);
	const out: StatePart[] = [];
	const visit = (node: unknown, path: string, level: number) => {
		const bytes = bytesOf(node);
		if (bytes < share * total) return;
		const children = node !== null && typeof node === 'object' ? Object.entries(node as Record<string, unknown>) : [];
		const large = children.filter(([, child]) => bytesOf(child) >= share * total);
		if (level >= depth || large.length === 0) {
			out.push({ path: path || '(all)', bytes });
			return;
		}
		for (const [key, child] of large) visit(child, path ? `${path}.${key}` : key, level + 1);
		const rest = bytes - large.reduce((sum, [, child]) => sum + bytesOf(child), 0);
		if (rest >= share * total) out.push({ path: `${path || '(all)'} (the rest)`, bytes: rest });
	};
	visit(value, '', 0);
	return out.sort((a, b) => b.bytes - a.bytes);
}

export const kb = (bytes: number): string => `${(bytes / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} kB`;

/** The parts as a line: paths without the prefix they all share (the node's key and the state's own). */
export function partsLine(parts: StatePart[]): string {
	const split = parts.map((part) => part.path.split('.'));
	let common = 0;
	while (parts.length > 1 && split.every((path) => path.length > common + 1 && path[common] === split[0][common])) common++;
	return parts.map((part, i) => `${split[i].slice(common).join('.')} ${kb(part.bytes)}`).join(', ');
}
