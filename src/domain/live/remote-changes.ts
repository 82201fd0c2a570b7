// Transaction changes committed by other instances sharing the database, published on this instance's live feed, so
// an events stream behind a load balancer sees every change whichever instance made it. The database's notice
// carries only an id and a version: the records are read back in one query per short window, and only while the
// feed has listeners (an instance with no stream open reads nothing).
import type { StoredTransaction } from '../relayers/ports.ts';
import type { LiveFeed } from './feed.ts';

/** Notices gathered before one read: a burst of commits becomes one query. */
export const REMOTE_WINDOW_MS = 20;
/** Ids per read (a large burst is read in several). */
const READ_BATCH = 500;
/** Versions already published, kept for the most recent ids: a notice for a version already shown is skipped. */
const REMEMBERED = 10_000;

export interface RemoteChangesDeps {
  feed: LiveFeed;
  findMany(ids: readonly string[]): Promise<StoredTransaction[]>;
  /**
   * A read failed: those changes are not shown (a stream's reader reads the current state after a gap anyway). Told
   * once per outage: the first failure after a read that worked.
   */
  onError(err: unknown): void;
}

/** Returns what to call for each remote notice (id, version). */
export function createRemoteChanges(deps: RemoteChangesDeps): (id: string, version: number) => void {
  const waiting = new Map<string, number>();
  const published = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  let failing = false;

  function remember(id: string, version: number): void {
    published.delete(id);
    published.set(id, version);
    if (published.size > REMEMBERED) published.delete(published.keys().next().value!);
  }

  async function read(): Promise<void> {
    timer = undefined;
    if (reading) return;
    reading = true;
    try {
      while (waiting.size > 0) {
        const ids = [...waiting.keys()].slice(0, READ_BATCH);
        for (const id of ids) waiting.delete(id);
        if (deps.feed.size === 0) continue;
        const rows = await deps.findMany(ids).then(
          (found) => {
            failing = false;
            return found;
          },
          (err: unknown) => {
            if (!failing) deps.onError(err);
            failing = true;
            return [];
          },
        );
        // The row read may be newer than its notice: it is shown once, and a later notice for it is then skipped.
        for (const { record, version } of rows) {
          if ((published.get(record.id) ?? -1) >= version) continue;
          remember(record.id, version);
          deps.feed.publish({ type: 'transaction_update', relayer_id: record.relayer_id, transaction: record });
        }
      }
    } finally {
      reading = false;
    }
  }

  return (id, version) => {
    if (deps.feed.size === 0) return;
    if ((published.get(id) ?? -1) >= version || (waiting.get(id) ?? -1) >= version) return;
    waiting.set(id, version);
    if (!timer && !reading) timer = setTimeout(() => void read(), REMOTE_WINDOW_MS);
  };
}
