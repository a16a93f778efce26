/** The sandbox's seeded random numbers (mulberry32): the same seed, the same data. Imports nothing, so
 * that every sandbox module can use it. */
const STEP = 0x6d2b79f5;

/** mulberry32's number at state `a`. */
function mix(a: number): number {
	let t = a;
	t = Math.imul(t ^ (t >>> 15), t | 1);
	t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

export function mulberry32(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + STEP) >>> 0;
		return mix(a);
	};
}

export class Rng {
	private a: number;
	/** `seed`, or a `state` read earlier: the generator goes on from there. */
	constructor(seed: number) {
		this.a = seed >>> 0;
	}
	/** Where the generator is: `new Rng(rng.state)` draws what this one draws next. */
	get state(): number {
		return this.a;
	}
	/** mulberry32, with its state kept here. */
	private next(): number {
		this.a = (this.a + STEP) >>> 0;
		return mix(this.a);
	}
	float(): number {
		return this.next();
	}
	/** Integer in [min, max], both inclusive. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}
	chance(p: number): boolean {
		return this.next() < p;
	}
	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}
	/** Between min and max distinct items, in their original order. */
	some<T>(items: readonly T[], min: number, max: number): T[] {
		const n = Math.min(items.length, this.int(min, max));
		const idx = items.map((_, i) => i);
		for (let i = idx.length - 1; i > 0; i--) {
			const j = Math.floor(this.next() * (i + 1));
			[idx[i], idx[j]] = [idx[j], idx[i]];
		}
		return idx
			.slice(0, n)
			.sort((a, b) => a - b)
			.map((i) => items[i]);
	}
	hex(n: number): string {
		let s = '';
		for (let i = 0; i < n; i++) s += Math.floor(this.next() * 16).toString(16);
		return s;
	}
	/** A version-4 shaped UUID (lowercase). */
	uuid(): string {
		const h = this.hex(32).split('');
		h[12] = '4';
		h[16] = '89ab'[parseInt(h[16], 16) & 3];
		const s = h.join('');
		return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
	}
	digits(n: number): string {
		let s = '';
		for (let i = 0; i < n; i++) s += String(Math.floor(this.next() * 10));
		return s;
	}
}
