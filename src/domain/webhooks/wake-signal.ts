// In-process doorbell between the outbox (rings after its commit) and the dispatcher (delivers at once).
import type { WakeSignal } from '../notifications/ports.ts';

export function createWakeSignal(): WakeSignal {
  const listeners = new Set<() => void>();
  let queued = false;
  return {
    notify() {
      // Rung after commits: many commits in one tick ring once.
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
