-- Durable background jobs: one row per (kind, subject), claimed with FOR UPDATE SKIP LOCKED under a lease.
CREATE TABLE jobs (
  -- Never reused, so a stale lease holder can never touch a later job with its id.
  id BIGSERIAL PRIMARY KEY,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  due_at BIGINT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  payload TEXT,
  generation INTEGER NOT NULL DEFAULT 1,
  claims INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at BIGINT,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (kind, subject)
);

CREATE INDEX jobs_due ON jobs (due_at, id);
