// The service's live events, in process: every committed transaction change, published once, read by the events
// stream (GET /api/v1/events) and the console's charts. Listeners must not throw or block: they are called inline.
import type { TransactionRecord } from '../types.ts';

export interface TransactionUpdate {
  type: 'transaction_update';
  relayer_id: string;
  transaction: TransactionRecord;
}

export type LiveEvent = TransactionUpdate;

export interface LiveFeed {
  publish(event: LiveEvent): void;
  /** Returns unsubscribe. */
  subscribe(listener: (event: LiveEvent) => void): () => void;
  /** Listeners now (the stream's clients among them). */
  readonly size: number;
}

export function createLiveFeed(): LiveFeed {
  const listeners = new Set<(event: LiveEvent) => void>();
  return {
    publish(event) {
      for (const listener of listeners) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get size() {
      return listeners.size;
    },
  };
}
