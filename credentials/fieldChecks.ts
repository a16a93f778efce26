/**
 * What the credential's fields check while the user types (n8n shows a notice while its condition
 * holds), shared by both editions' fields. The editor holds a saved password field as a placeholder,
 * "__n8n_BLANK_VALUE_…" or "__n8n_EMPTY_VALUE_…", never a reason to warn. The patterns avoid
 * look-arounds: n8n evaluates them with its safe regex engine.
 */
export const API_KEY_SHAPE_PATTERN = '^\\s*[A-Za-z0-9]{3}_[0-9a-fA-F]{32}\\s*$';
export const SAVED_SECRET_PREFIX = '__n8n_';
/** https://, or http:// to loopback (the local sandbox), with a host. */
export const SAFE_BASE_URL_PATTERN = '^\\s*(https://[^\\s/]+|http://(localhost|127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}|\\[::1\\])(:[0-9]+)?)(/\\S*)?\\s*$';
export const API_PATH_SUFFIX_PATTERN = '/api/v1/*\\s*$';
