/**
 * The credential's optional "Shared Rate Limit: Redis URL": parsed once, and shown in errors only
 * without its password.
 */

export interface RedisTarget {
	/** The URL as entered (trimmed): what the Redis client connects to. Never shown or logged. */
	url: string;
	/** Scheme, user, host, port and database, with the password replaced by `***` and no query. */
	display: string;
	/** The password (or ''), so that error texts from Redis can be scrubbed of it. */
	secret: string;
}

export type RedisUrlProblem = { problem: string; hint: string };

const HINT =
	'Enter redis://[user:password@]host[:port][/database], or rediss://… for TLS (for example the Redis of n8n queue mode), or leave the field empty to limit each n8n process on its own.';

export function parseRedisUrl(raw: string): RedisTarget | RedisUrlProblem {
	const text = raw.trim();
	let parsed: URL;
	try {
		parsed = new URL(text);
	} catch {
		// The text is not echoed: it may hold a password.
		return { problem: 'The Shared Rate Limit Redis URL is not a valid URL', hint: HINT };
	}
	if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
		return { problem: `The Shared Rate Limit Redis URL uses the unsupported scheme "${parsed.protocol}"`, hint: HINT };
	}
	if (!parsed.hostname) {
		return { problem: 'The Shared Rate Limit Redis URL has no host', hint: HINT };
	}
	return { url: text, display: displayRedisUrl(parsed), secret: decodeURIComponent(parsed.password) };
}

function displayRedisUrl(parsed: URL): string {
	let auth = '';
	if (parsed.username || parsed.password) auth = `${parsed.username}${parsed.password ? ':***' : ''}@`;
	const path = parsed.pathname && parsed.pathname !== '/' ? parsed.pathname : '';
	return `${parsed.protocol}//${auth}${parsed.host}${path}`;
}

/** Removes the password from a text that came back from Redis or the network layer. */
export function scrubSecret(text: string, secret: string): string {
	if (!secret) return text;
	return text.split(secret).join('***').split(encodeURIComponent(secret)).join('***');
}
