/**
 * Checks of the stored state's parts (JSON as n8n keeps workflow static data): every reader of a part
 * of the state uses these, so that anything malformed reads as absent (a new start), never as a crash.
 */
import { isPackedCodes } from './keySet';

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const isMs = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Absent, or a whole number from 0. */
export const isCount = (value: unknown): boolean => value === undefined || (Number.isInteger(value) && (value as number) >= 0);

export function isShortText(value: unknown): value is string {
	return typeof value === 'string' && value.length > 0 && value.length <= 64;
}

/** A millisecond timestamp (or a UTC day number) written as a decimal key. */
export const isMsKey = (key: string): boolean => /^-?\d+$/.test(key) && Number.isSafeInteger(Number(key));

/** A record of packed strings (keys and values checked); undefined when malformed. */
export function readPacked(raw: unknown, keyIsValid: (key: string) => boolean, valueIsValid: (value: unknown) => value is string = isPackedCodes): Record<string, string> | undefined {
	if (!isRecord(raw)) return undefined;
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(raw)) {
		if (!keyIsValid(key) || !valueIsValid(value)) return undefined;
		out[key] = value;
	}
	return out;
}
