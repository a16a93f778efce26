/**
 * Small helpers every part of the package uses: one of each. `sleep` is n8n-workflow's own
 * (exported by every n8n-workflow version that n8n 1.x and 2.x ship).
 */
export { sleep } from 'n8n-workflow';

/** An HTTP header of a response (as n8n's helpers give them: any case, maybe an array); undefined when absent. */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): string | undefined {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	if (Array.isArray(value)) return String(value[0]);
	return value === undefined || value === null ? undefined : String(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Milliseconds of an API timestamp: an ISO 8601 string (contract) or epoch milliseconds (tolerated,
 * see docs/troubleshooting.md). `null` when the value is missing or unreadable; callers decide what a
 * missing time means for them (oldest, unknown, skipped).
 */
export function timestampMs(value: unknown): number | null {
	if (typeof value === 'number') return Number.isFinite(value) ? value : null;
	if (typeof value !== 'string' || value === '') return null;
	const ms = Date.parse(value);
	return Number.isFinite(ms) ? ms : null;
}
