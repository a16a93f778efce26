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

export function decodeNumber(text: string): number {
	let value = 0;
	for (const char of text) value = value * 64 + ALPHABET.indexOf(char);
	return value;
}
