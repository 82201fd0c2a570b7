-- Notifications (webhook targets) and the transactional outbox of webhook events.
CREATE TABLE notifications (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL DEFAULT 'webhook',
  url TEXT NOT NULL,
  -- Plain, or 'enc:v1:<iv>:<tag>:<ciphertext>' (AES-256-GCM) when STORAGE_ENCRYPTION_KEY is set.
  signing_key TEXT,
  -- Fingerprint of the config-file entry that last wrote this row (NULL: created through the API).
  seed_hash TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE webhook_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  notification_id TEXT NOT NULL,
  event TEXT NOT NULL,
  transaction_id TEXT,
  -- The exact bytes sent (and signed) on every attempt.
  body TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  -- Unix milliseconds; meaningful while pending.
  next_attempt_at INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  delivered_at TEXT
);

-- The dispatcher's two questions: what is due, and is an earlier event of the same transaction still pending.
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, seq) WHERE status = 'pending';
CREATE INDEX webhook_events_pending_by_transaction ON webhook_events (transaction_id, seq) WHERE status = 'pending';
CREATE INDEX webhook_events_by_notification ON webhook_events (notification_id, seq DESC);
