/**
 * One value per process, whichever bundle asks first. n8n loads each node file on its own and the
 * build bundles each with its own copy of this code, so module-level state would be per node; a
 * registered symbol on `globalThis` is the same for every copy.
 */
export function processSingleton<T>(symbolName: string, create: () => T): T {
	const holder = globalThis as unknown as Record<symbol, T | undefined>;
	const key = Symbol.for(symbolName);
	let found = holder[key];
	if (found === undefined) {
		found = create();
		holder[key] = found;
	}
	return found;
}
