/**
 * Small helpers every part of the package uses: one of each. `sleep` is n8n-workflow's own
 * (exported by every n8n-workflow version that n8n 1.x and 2.x ship).
 */
export { sleep } from 'n8n-workflow';

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Milliseconds of an API timestamp: an ISO 8601 string (contract) or epoch milliseconds (tolerated,
 * see README "contract gaps"). `null` when the value is missing or unreadable; callers decide what a
 * missing time means for them (oldest, unknown, skipped).
 */
export function timestampMs(value: unknown): number | null {
	if (typeof value === 'number') return Number.isFinite(value) ? value : null;
	if (typeof value !== 'string' || value === '') return null;
	const ms = Date.parse(value);
	return Number.isFinite(ms) ? ms : null;
}
