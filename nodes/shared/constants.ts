/** Values fixed by the Booking Requests Read API contract, and the package's own safety margins. */

export const CREDENTIAL_TYPE = 'bookingRequestsApi';

export const API_PATHS = {
	requests: '/api/v1/requests',
	sessions: '/api/v1/abandoned-sessions',
	forms: '/api/v1/forms',
	profiles: '/api/v1/profiles',
} as const;

/** Contract: 1 request per second per API key. */
export const MIN_GAP_MS = 1000;
/**
 * Added to every gap so that a real server, whose clock and socket timing differ from ours by a few
 * milliseconds, never sees two requests less than 1 s apart. 15 ms keeps the rate within 2% of the limit.
 */
export const SAFETY_MARGIN_MS = 15;

/** Contract: per_page maximum 100 (requests, sessions, forms); the default is 25. */
export const MAX_PER_PAGE = 100;

/** Every request has a timeout: a server that never answers must not hold the limiter forever. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** 429 handling: wait Retry-After (whole seconds, capped) and retry through the limiter. */
export const MAX_RATE_LIMIT_RETRIES = 5;
export const MAX_RETRY_AFTER_MS = 30_000;

/** 5xx, time-outs and dropped connections: exponential backoff, bounded attempts. */
export const MAX_SERVER_ERROR_RETRIES = 4;
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 8000;

/** A Return All that walks more pages than this is treated as a server that ignores `page`. */
export const MAX_PAGES = 100_000;
