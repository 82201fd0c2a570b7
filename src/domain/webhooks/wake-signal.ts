// In-process doorbell between the outbox (rings after writing) and the dispatcher (delivers at once).
import type { WakeSignal } from '../notifications/ports.ts';

export function createWakeSignal(): WakeSignal {
  const listeners = new Set<() => void>();
  let queued = false;
  return {
    notify() {
      // Rung inside a SQLite transaction: setImmediate runs after it has committed (better-sqlite3 is
      // synchronous), and many writes in one tick ring once.
      if (queued) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        for (const listener of listeners) listener();
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
