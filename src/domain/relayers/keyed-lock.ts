// Per-key async mutex: serializes the read-sign-write cycle of one relayer's sends, replaces and cancels.

export interface KeyedLock {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * Signing is async (viem), but nonce allocation must not interleave, so work on one relayer runs
 * one at a time; the store's compare-and-set still guards against a second process.
 */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, fn: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(fn);
      const tail = result.catch(() => undefined);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}
