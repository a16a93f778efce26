import { inspect } from 'node:util';

/** Everything an error exposes: message, description, JSON form and a deep inspection (cause chain). */
export function everythingIn(value: unknown): string {
	let json = '';
	try {
		const seen = new WeakSet();
		json = JSON.stringify(value, (_key, inner: unknown) => {
			if (typeof inner === 'object' && inner !== null) {
				if (seen.has(inner)) return '[circular]';
				seen.add(inner);
			}
			return inner;
		});
	} catch {
		json = '';
	}
	const error = value as { message?: string; description?: string; stack?: string };
	return [error?.message, error?.description, error?.stack, json, inspect(value, { depth: 8, getters: false })].join('\n');
}
