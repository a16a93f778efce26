import { createHash } from 'node:crypto';

/**
 * Identifies an API key without revealing it: the first 16 hex characters of its SHA-256.
 * Used for limiter ids, error texts and logs. The raw key never leaves the credential.
 */
export function keyIdOf(apiKey: string): string {
	return createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 16);
}

/** Contract: a fixed 4-character prefix ending in an underscore, followed by 32 hexadecimal characters. */
export const API_KEY_SHAPE = /^[A-Za-z0-9]{3}_[0-9a-fA-F]{32}$/;

export function looksLikeApiKey(apiKey: string): boolean {
	return API_KEY_SHAPE.test(apiKey);
}
