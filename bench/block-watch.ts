// The bench's view of when a transaction is mined: polls the node's new blocks every 100 ms and notes when each
// (sender, nonce) is first seen in one (whatever hash it ended with: a re-priced or replaced send counts once).
import { setTimeout as pause } from 'node:timers/promises';
import { rpc } from './chain.ts';

const POLL_MS = 100;

export interface BlockWatch {
  /** performance.now() when the block holding `from`'s `nonce` was first seen; null if not within `timeoutMs`. */
  mined(from: string, nonce: number, timeoutMs: number): Promise<number | null>;
  stop(): void;
}

export function startBlockWatch(url: string): BlockWatch {
  const seen = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  let stopped = false;
  const keyOf = (from: string, nonce: number) => `${from.toLowerCase()}:${nonce}`;
  const note = (key: string, at: number) => {
    seen.set(key, at);
    waiters.get(key)?.(at);
    waiters.delete(key);
  };
  (async () => {
    let next = Number(await rpc<string>(url, 'eth_blockNumber', [])) + 1;
    while (!stopped) {
      try {
        const head = Number(await rpc<string>(url, 'eth_blockNumber', []));
        for (; next <= head && !stopped; next++) {
          const block = await rpc<{ transactions: Array<{ from: string; nonce: string }> }>(
            url,
            'eth_getBlockByNumber',
            [`0x${next.toString(16)}`, true],
          );
          const at = performance.now();
          for (const t of block.transactions) note(keyOf(t.from, Number(t.nonce)), at);
        }
      } catch {
        // The node busy or gone (the bench stopping): the next poll tries again.
      }
      await pause(POLL_MS);
    }
  })().catch(() => {});
  return {
    async mined(from, nonce, timeoutMs) {
      const key = keyOf(from, nonce);
      const known = seen.get(key);
      if (known !== undefined) return known;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(key);
          resolve(null);
        }, timeoutMs);
        waiters.set(key, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    stop() {
      stopped = true;
    },
  };
}
