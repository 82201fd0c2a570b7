-- Notifications (webhook targets) and the transactional outbox of webhook events.
CREATE TABLE notifications (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL DEFAULT 'webhook',
  url TEXT NOT NULL,
  -- Plain, or 'enc:v1:...' (AES-256-GCM) when STORAGE_ENCRYPTION_KEY is set.
  signing_key TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE webhook_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  notification_id TEXT NOT NULL,
  event TEXT NOT NULL,
  transaction_id TEXT,
  body TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  next_attempt_at INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  delivered_at TEXT
);

CREATE INDEX webhook_events_due ON webhook_events (status, next_attempt_at);
CREATE INDEX webhook_events_by_notification ON webhook_events (notification_id, seq DESC);
CREATE INDEX webhook_events_by_transaction ON webhook_events (transaction_id, seq);
