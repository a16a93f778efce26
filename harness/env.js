/**
 * The one reader of the environment variables this project's tooling takes as overrides
 * (REDIS_SERVER_BIN, E2E_N8N_VERSION, FUZZ_SEED, ...): a variable set but empty, or only spaces,
 * counts as unset, as a script that clears a variable (`REDIS_SERVER_BIN=`) means it to.
 * Plain JavaScript, so that jest.config.js and scripts/*.js read the environment the same way
 * as the TypeScript tooling (env.d.ts gives its types).
 */
'use strict';

/**
 * The value of an override, trimmed; undefined when it is unset, empty or only spaces.
 * @param {string} name
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string | undefined}
 */
function envOverride(name, env = process.env) {
	const value = env[name]?.trim();
	return value ? value : undefined;
}

module.exports = { envOverride };
