/** Reading loose API values into the flat output shapes: one rule for "no value" everywhere. */

/** A non-empty, trimmed string, else null (an empty string in the API means "not filled in"). */
export function textOrNull(value: unknown): string | null {
	if (typeof value !== 'string') return null;
	const text = value.trim();
	return text === '' ? null : text;
}

/** The value itself when the API sent one, else null (fields are never left out of a shape). */
export function valueOrNull<T>(value: T | undefined): T | null {
	return value === undefined ? null : value;
}

/** An array of strings (ids), dropping anything else; [] when absent. */
export function stringList(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

export function recordOrEmpty(value: unknown): Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
