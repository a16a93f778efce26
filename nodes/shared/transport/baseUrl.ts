import { CREDENTIAL_DISPLAY_NAME } from '../constants';

/**
 * Normalises the credential's Base URL and refuses to send the API key in clear text to another host.
 */

const LOOPBACK_HOSTS = new Set(['localhost', '::1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase();
	// Only names that never go to DNS: `*.localhost` is resolved by a DNS server on most systems.
	if (LOOPBACK_HOSTS.has(host)) return true;
	return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export type BaseUrlProblem = { problem: string; hint: string };

/**
 * Returns the normalised base URL (no trailing slash, path prefix kept, no query or fragment) or a
 * problem with a hint for the user. User info (`user:pass@`) is refused: it would be sent to the server
 * and shown in errors.
 */
export function normaliseBaseUrl(raw: unknown, credentialName = CREDENTIAL_DISPLAY_NAME): { url: string } | BaseUrlProblem {
	const text = typeof raw === 'string' ? raw.trim() : '';
	if (!text) {
		return {
			problem: 'The credential has no Base URL',
			hint: `Open the '${credentialName}' credential and enter the API's base address, e.g. https://api.example.com`,
		};
	}
	let parsed: URL;
	try {
		parsed = new URL(text);
	} catch {
		return {
			problem: 'The Base URL is not a valid URL',
			hint: 'Enter an absolute address that starts with https://, e.g. https://api.example.com',
		};
	}
	if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
		return { problem: `The Base URL uses the unsupported scheme "${parsed.protocol}"`, hint: 'Use https://' };
	}
	if (parsed.username || parsed.password) {
		return {
			problem: 'The Base URL contains a user name or password',
			hint: 'Remove the "user:password@" part; the API key is the only authentication the API uses.',
		};
	}
	if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
		return {
			problem: 'Refusing to send the API key over plain http:// to a remote host',
			hint: `The key would travel unencrypted to ${parsed.hostname}. Use https://, or http:// only for localhost / 127.0.0.1 / ::1 (for example the bundled sandbox).`,
		};
	}
	const path = parsed.pathname.replace(/\/+$/, '');
	return { url: `${parsed.protocol}//${parsed.host}${path}` };
}
