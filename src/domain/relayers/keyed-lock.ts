// Per-key async mutex: serializes the read-sign-write cycle of one relayer's sends, replaces and cancels; sends that
// queue up behind one another are written together, in one store transaction (one row lock, one commit).

export interface KeyedLock {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Joins `item` to `key`'s next batch. A batch runs in the key's turn like `run`; every item that arrives while it
   * waits (up to `max`) is handed to the same `fn` call. `fn` answers one result per item, in order: an Error
   * rejects that item alone; a throw rejects the whole batch.
   */
  batch<I, R>(key: string, item: I, fn: (items: I[]) => Promise<Array<R | Error>>, max?: number): Promise<R>;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Batch<I, R> {
  fn: (items: I[]) => Promise<Array<R | Error>>;
  items: I[];
  settle: Array<{ resolve(value: R): void; reject(err: unknown): void }>;
}

/**
 * Signing is async (viem), but nonce allocation must not interleave, so work on one relayer runs
 * one at a time in this process; the store's row lock (getForUpdate) orders it against other instances.
 */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  // biome-ignore lint/suspicious/noExplicitAny: each key holds one batch of its own item and result types (batch<I, R> casts back)
  const open = new Map<string, Batch<any, any>>();

  function run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  }

  async function execute<I, R>(key: string, batch: Batch<I, R>): Promise<void> {
    // From here on the batch is closed: later items start the next one.
    if (open.get(key) === batch) open.delete(key);
    try {
      const results = await batch.fn(batch.items);
      batch.settle.forEach((s, i) => {
        const r = results[i];
        if (r instanceof Error) s.reject(r);
        else s.resolve(r as R);
      });
    } catch (err) {
      for (const s of batch.settle) s.reject(err);
    }
  }

  return {
    run,
    batch<I, R>(key: string, item: I, fn: (items: I[]) => Promise<Array<R | Error>>, max = 64): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        let batch = open.get(key) as Batch<I, R> | undefined;
        if (!batch || batch.fn !== fn || batch.items.length >= max) {
          batch = { fn, items: [], settle: [] };
          open.set(key, batch);
          const b = batch;
          // A new batch closes one event-loop turn later: sends whose requests were read in the same turn reach
          // here from separate promise continuations, and would otherwise each find the previous one already closed
          // (one commit per send under a burst, measured: docs/performance.md, "Group commits").
          void run(key, () => nextTurn().then(() => execute(key, b)));
        }
        batch.items.push(item);
        batch.settle.push({ resolve, reject });
      });
    },
  };
}
