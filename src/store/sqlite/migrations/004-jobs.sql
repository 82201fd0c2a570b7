-- Durable background jobs (status checks, resubmissions, NOOPs): one row per (kind, subject), claimed with a lease.
CREATE TABLE jobs (
  -- AUTOINCREMENT: an id is never reused, so a stale lease holder can never touch a later job with its id.
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  -- Unix milliseconds, like every time in this table.
  due_at INTEGER NOT NULL,
  -- Failed runs since the job was last finished or rescheduled: drives the retry backoff.
  attempts INTEGER NOT NULL DEFAULT 0,
  -- JSON text, or NULL.
  payload TEXT,
  -- Bumped by every schedule: a holder whose run started before it keeps the row when it finishes.
  generation INTEGER NOT NULL DEFAULT 1,
  -- Bumped by every claim: (lease_owner, claims) names one lease.
  claims INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (kind, subject)
);

-- The claim and the scheduler's sleep walk due times in order.
CREATE INDEX jobs_due ON jobs (due_at, id);
