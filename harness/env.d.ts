/** The value of an override, trimmed; undefined when it is unset, empty or only spaces (env.js). */
export function envOverride(name: string, env?: NodeJS.ProcessEnv): string | undefined;
