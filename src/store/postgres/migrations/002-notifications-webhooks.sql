-- Notifications (webhook targets) and the transactional outbox, with a lease per event so that one
-- instance at a time delivers it (claimed with FOR UPDATE SKIP LOCKED; an expired lease is claimed again).
CREATE TABLE notifications (
  -- Insertion order (SQLite's rowid): listing ties and "oldest first" follow it.
  pos BIGSERIAL UNIQUE,
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL DEFAULT 'webhook',
  url TEXT NOT NULL,
  signing_key TEXT,
  seed_hash TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE webhook_events (
  seq BIGSERIAL PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  notification_id TEXT NOT NULL,
  event TEXT NOT NULL,
  transaction_id TEXT,
  body TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  next_attempt_at BIGINT NOT NULL,
  -- The instance delivering it now, until lease_expires_at (Unix ms); NULL when nobody is.
  lease_owner TEXT,
  lease_expires_at BIGINT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  delivered_at TEXT
);

CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, seq) WHERE status = 'pending';
CREATE INDEX webhook_events_pending_by_transaction ON webhook_events (transaction_id, seq) WHERE status = 'pending';
CREATE INDEX webhook_events_by_notification ON webhook_events (notification_id, seq DESC);
