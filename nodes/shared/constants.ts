/** Values fixed by the Booking Requests Read API contract, and the package's own safety margins. */

export const CREDENTIAL_TYPE = 'bookingRequestsApi';
/** The credential type's display name: how texts name a credential the user did not name. */
export const CREDENTIAL_DISPLAY_NAME = 'Booking Requests API';

/** The two editions built from this source (docs/guides/queue-mode.md; nodes/shared/transport/limiter/edition.ts). */
export const CLOUD_PACKAGE_NAME = 'n8n-nodes-booking-requests';
export const QUEUE_PACKAGE_NAME = 'n8n-nodes-booking-requests-queue';

export const API_PATHS = {
	requests: '/api/v1/requests',
	sessions: '/api/v1/abandoned-sessions',
	forms: '/api/v1/forms',
	profiles: '/api/v1/profiles',
} as const;

/** Contract: 1 request per second per API key. How requests are paced: transport/limiter/pacing.ts. */
export const MIN_GAP_MS = 1000;
/**
 * Added to every gap the pacing aims at (at the server's arrival times): the clocks' millisecond
 * granularity and the small errors of the round-trip model, on a busy machine too. 10 ms = 1% of the limit.
 */
export const SAFETY_MARGIN_MS = 10;

/** Contract: per_page maximum 100 (requests, sessions, forms); the default is 25. */
export const MAX_PER_PAGE = 100;

/** Every request has a timeout: a server that never answers must not hold the limiter forever. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** A 429's Retry-After (whole seconds or an HTTP date) is honoured up to this. Retry rules: transport/limiter/retryRule.ts. */
export const MAX_RETRY_AFTER_MS = 30_000;

/**
 * How long after its timestamp a row may become visible in a list (a write committed late into an
 * older millisecond): the contract does not say; the package assumes at most this (docs: Known
 * limitations). Return All reads the top again this far below where it began.
 */
export const LATE_COMMIT_MS = 5_000;

/** A Return All that walks more pages than this is treated as a server that ignores `page`. */
export const MAX_PAGES = 100_000;
