-- Issue 23: a stored API key may carry its own rate limit. JSON `{ "requests_per_second", "burst_size" }`, or NULL:
-- the service's RATE_LIMIT_RPS / RATE_LIMIT_BURST.
ALTER TABLE api_keys ADD COLUMN rate_limit TEXT;
