/**
 * Reading a failed request's cause: n8n's helpers wrap the Node / axios error one or more times, so a
 * code is looked for along the `cause` chain. One walker for the request function, the error mapper
 * and the credential test, each with its own set of codes.
 */

/** Node / OpenSSL codes of a TLS failure: the https connection itself could not be set up. */
export const TLS_CODE = /^(EPROTO|ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(GET|VERIFY)_|HOSTNAME_MISMATCH$)/;

/** Error messages that stand for a code when the error carries none (axios, Node's http). */
export const SOCKET_HANG_UP: [RegExp, string] = [/socket hang up/i, 'ECONNRESET'];
export const AXIOS_TIMEOUT: [RegExp, string] = [/timeout of \d+ms exceeded/i, 'ECONNABORTED'];

/**
 * The first code along the chain that `accepts`; at each level a message matching one of `messages`
 * counts as its code. Looks at most `maxDepth` levels deep.
 */
export function codeInChain(
	error: unknown,
	accepts: (code: string) => boolean,
	messages: ReadonlyArray<[RegExp, string]> = [],
	maxDepth = 5,
): string | undefined {
	let current = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined;
	for (let depth = 0; current && typeof current === 'object' && depth < maxDepth; depth++) {
		if (typeof current.code === 'string' && accepts(current.code)) return current.code;
		if (typeof current.message === 'string') {
			for (const [pattern, code] of messages) if (pattern.test(current.message)) return code;
		}
		current = current.cause as typeof current;
	}
	return undefined;
}
