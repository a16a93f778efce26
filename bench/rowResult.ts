/** One benchmark row as the driver (run.ts) prints it; every row module returns these. */
export interface RowResult {
	row: string;
	items: number;
	calls: number;
	/** ceil(N/100): the fewest calls the contract allows. */
	minCalls: number;
	seconds: number;
	/** ceil(N/100) - 1: the least time the contract allows (the first call is free). */
	minSeconds: number;
	rateLimited: number;
	minGapMs: number | null;
	peakRssMb: number;
	/** Peer rows: this node's seconds ÷ the HTTP Request node's in the same n8n, latency and run. */
	vsHttpNode?: number;
	note?: string;
}
