/**
 * An in-memory request list for the join's unit tests (nodes/shared/requestLookup.ts,
 * requestJoin.ts): newest first by `created_at` (ties by id, newest id first), 100 per page, with
 * `pagination.total`; it counts list reads and Get requests. `beforeRead` runs before each list read
 * (a test changes the list between calls); nothing waits.
 */
import type { PageRead } from '../../nodes/shared/transport/pageReader';
import type { BookingRequest } from '../../nodes/shared/types';

export const MODEL_PER_PAGE = 100;

export class ModelList {
	/** Oldest first; served newest first. */
	readonly requests: BookingRequest[] = [];
	calls = 0;
	gets = 0;
	readPages: number[] = [];
	private seq = 0;

	constructor(
		private readonly options: { sendTotal?: boolean; beforeRead?: (list: ModelList) => void; ignorePage?: boolean } = {},
	) {}

	add(at: number): BookingRequest {
		const request = { id: `r-${String(this.seq++).padStart(6, '0')}`, created_at: new Date(at).toISOString() } as BookingRequest;
		this.requests.push(request);
		return request;
	}

	/** `n` requests a second apart from `from`. */
	addMany(n: number, from: number): BookingRequest[] {
		return Array.from({ length: n }, (_, i) => this.add(from + i * 1000));
	}

	/** The list as the API orders it. */
	newestFirst(): BookingRequest[] {
		return [...this.requests].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
	}

	remove(id: string): void {
		const index = this.requests.findIndex((request) => request.id === id);
		if (index >= 0) this.requests.splice(index, 1);
	}

	/** Page `page` (1-based) of the list as it is now. */
	page(page: number): PageRead<BookingRequest> {
		const number = this.options.ignorePage ? 1 : page;
		const items = this.newestFirst()
			.slice((number - 1) * MODEL_PER_PAGE, number * MODEL_PER_PAGE)
			.map((item) => ({ ...item }));
		return { page, items, perPage: MODEL_PER_PAGE, total: this.options.sendTotal === false ? undefined : this.requests.length };
	}

	reader(callsLeft = () => Infinity) {
		return {
			callsLeft,
			read: async (page: number): Promise<PageRead<BookingRequest>> => {
				this.options.beforeRead?.(this);
				this.calls++;
				this.readPages.push(page);
				return this.page(page);
			},
		};
	}

	/** Get request: a copy, or null when the list does not hold the id (404). */
	async get(id: string): Promise<BookingRequest | null> {
		this.gets++;
		const request = this.requests.find((candidate) => candidate.id === id);
		return request ? { ...request } : null;
	}
}
