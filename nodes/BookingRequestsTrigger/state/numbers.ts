/**
 * Whole numbers in a fixed width of base64url characters, for the compact records of the trigger's
 * state (customers.ts, events/requestUpdated/records.ts): JSON-safe, and 7 characters hold any millisecond
 * timestamp up to the year 2109.
 */
export const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `value` (clamped to 0 and below 64^width) in `width` characters. */
export function encodeNumber(value: number, width: number): string {
	let out = '';
	let rest = Math.max(0, Math.floor(value));
	for (let i = 0; i < width; i++) {
		out = ALPHABET[rest % 64] + out;
		rest = Math.floor(rest / 64);
	}
	return out;
}

const DIGIT = new Int8Array(128);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** The number written in `width` characters at `at` of text already checked to be of the alphabet (no copy of the slice). */
export function decodeNumberAt(text: string, at: number, width: number): number {
	let value = 0;
	for (let i = at; i < at + width; i++) value = value * 64 + DIGIT[text.charCodeAt(i)];
	return value;
}

export function decodeNumber(text: string): number {
	let value = 0;
	for (const char of text) value = value * 64 + ALPHABET.indexOf(char);
	return value;
}
