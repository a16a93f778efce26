import type { DisplayCondition } from 'n8n-workflow';

/**
 * What the credential's fields point out while the user types (n8n shows a notice while its condition
 * holds), shared by both editions' fields. Only conditions n8n evaluates without a regular expression:
 * n8n evaluates a credential's display conditions every time it resolves the credential (every
 * execution, poll, credential test and Fetch Test Event), and a `regex` condition runs in n8n's safe
 * regex engine, whose 250 ms watchdog fails the whole run on a starved server. What these conditions
 * cannot tell (a key one character short, a host that only starts like 127.x) the nodes check before
 * anything is sent, with the same words (transport/baseUrl.ts, the 401's key-shape explanation):
 * docs/credentials.md lists the differences.
 */

const startsWith = (text: string): DisplayCondition => ({ _cnd: { startsWith: text } });
const endsWith = (text: string): DisplayCondition => ({ _cnd: { endsWith: text } });
const includes = (text: string): DisplayCondition => ({ _cnd: { includes: text } });
const equals = (text: string): DisplayCondition => ({ _cnd: { eq: text } });

/** The editor holds a saved password field as a placeholder, "__n8n_BLANK_VALUE_…" or "__n8n_EMPTY_VALUE_…", never a reason to warn. */
export const SAVED_SECRET_PREFIX = '__n8n_';

/** Characters no key holds (a key is 3 letters or digits, "_", then 32 hexadecimal characters). */
const NEVER_IN_A_KEY = [...' -.,:;/\\|!?@#$%^&*()[]{}<>=+~"\'`“”‘’…'];

/** Typed text that cannot be a key: a character no key holds, "_" first or last, or "Bearer" pasted with the key. */
export const NOT_A_KEY: DisplayCondition[] = [
	...NEVER_IN_A_KEY.map(includes),
	startsWith('_'),
	endsWith('_'),
	startsWith('Bearer'),
	startsWith('bearer'),
];

/**
 * Keys the notice does not judge: a saved key (the editor's placeholder), and one with surrounding
 * spaces, which the nodes trim (these conditions cannot look past them, and a space inside a key is
 * one of the characters no key holds).
 */
export const KEY_NOT_JUDGED: DisplayCondition[] = [startsWith(SAVED_SECRET_PREFIX), startsWith(' '), endsWith(' ')];

/** `origin` alone, with a port or with a path: not a longer host name that only starts like it. */
function originConditions(origin: string): DisplayCondition[] {
	return [equals(origin), startsWith(`${origin}:`), startsWith(`${origin}/`)];
}

/** Addresses the key may be sent to: https://, or http:// to loopback (the local sandbox). */
export const SAFE_BASE_URL: DisplayCondition[] = [
	startsWith('https://'),
	...originConditions('http://localhost'),
	...originConditions('http://[::1]'),
	startsWith('http://127.'),
];

/** A Base URL that ends with the API's own path, which the nodes add to every call. */
export const API_PATH_SUFFIX: DisplayCondition[] = [endsWith('/api/v1'), endsWith('/api/v1/')];
