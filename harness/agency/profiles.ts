/**
 * Profiles of a measured stretch of a bench row, asked for by environment variables:
 * PROFILE_TO=<file> a CPU profile (node --cpu-prof would add the setup), HEAP_PROFILE_TO=<file> a
 * sampling heap profile that also counts objects already freed (what a poll allocates, not what it keeps).
 */
import * as fs from 'node:fs';
import { Session } from 'node:inspector';

import { envOverride } from '../env';

/** A profile: the variable naming its file, the inspector methods that start and stop it. */
interface ProfileKind {
	variable: string;
	enable?: string;
	start: string;
	stop: string;
	params?: object;
}

const KINDS: ProfileKind[] = [
	{ variable: 'PROFILE_TO', enable: 'Profiler.enable', start: 'Profiler.start', stop: 'Profiler.stop' },
	{
		variable: 'HEAP_PROFILE_TO',
		start: 'HeapProfiler.startSampling',
		stop: 'HeapProfiler.stopSampling',
		params: { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true },
	},
];

const post = (session: Session, method: string, params?: object): Promise<{ profile?: unknown }> =>
	new Promise((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as { profile?: unknown }))));

/** Starts the profiles the environment asks for; the returned function stops them and writes their files. */
export async function startProfiles(env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
	const running: Array<{ session: Session; kind: ProfileKind; file: string }> = [];
	for (const kind of KINDS) {
		const file = envOverride(kind.variable, env);
		if (!file) continue;
		const session = new Session();
		session.connect();
		if (kind.enable) await post(session, kind.enable);
		await post(session, kind.start, kind.params);
		running.push({ session, kind, file });
	}
	return async () => {
		for (const { session, kind, file } of running) {
			const { profile } = await post(session, kind.stop);
			fs.writeFileSync(file, JSON.stringify(profile));
			session.disconnect();
		}
	};
}
