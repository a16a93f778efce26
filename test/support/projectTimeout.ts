/**
 * A project's own test timeout (jest.config.js: globals.projectTestTimeoutMs, set up after the test
 * framework). jest's testTimeout applies to a whole run, and one run may hold several projects.
 */
const timeoutMs = (globalThis as { projectTestTimeoutMs?: number }).projectTestTimeoutMs;
if (timeoutMs) jest.setTimeout(timeoutMs);
export {};
