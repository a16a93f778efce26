/**
 * Documentation links, one page per topic. n8n's editor appends its tracking query to a node's
 * documentation URL with a plain `?` (NodeSettings: `${url}?utm_source=n8n_app&…`), which turns a
 * `…#section` link into a dead anchor; a page per topic survives it. The codex files
 * (*.node.json) repeat these URLs (JSON cannot import them); a test keeps them equal.
 *
 * The GitHub organisation is a placeholder until the repository is published (RELEASING.md).
 */
export const REPOSITORY_URL = 'https://github.com/n8n-nodes-booking-requests/n8n-nodes-booking-requests';

const DOCS = `${REPOSITORY_URL}/blob/main/docs`;

export const DOCS_URLS = {
	credentials: `${DOCS}/credentials.md`,
	actionNode: `${DOCS}/booking-requests-node.md`,
	trigger: `${DOCS}/booking-requests-trigger.md`,
} as const;
