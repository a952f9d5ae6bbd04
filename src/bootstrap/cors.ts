/** The response headers a browser script may read: the ones the API documents. */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
