-- Issue 23, as in the SQLite schema (src/store/sqlite/migrations/008-api-keys-rate-limit.sql): a key's own rate limit.
ALTER TABLE api_keys ADD COLUMN rate_limit TEXT;
