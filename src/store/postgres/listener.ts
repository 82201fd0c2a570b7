// LISTEN on a connection of its own: a NOTIFY committed by another instance rings the matching local listener with
// its payload (whose first word names the writer; this instance's own commits ring their listeners directly, after
// the commit). The connection is re-opened after a loss; listeners are rung once then, without a payload, since
// notifications may have been missed.
import type pg from 'pg';

export interface Listener {
  close(): Promise<void>;
}

const RECONNECT_MS = 1_000;

export function createListener(
  pool: pg.Pool,
  self: string,
  channels: Record<string, (payload?: string) => void>,
): Listener {
  let client: pg.PoolClient | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const ringAll = () => {
    for (const l of Object.values(channels)) l();
  };

  async function open(): Promise<void> {
    if (closed) return;
    try {
      const c = await pool.connect();
      if (closed) return c.release();
      c.on('notification', (n) => {
        const payload = n.payload ?? '';
        const space = payload.indexOf(' ');
        if ((space < 0 ? payload : payload.slice(0, space)) !== self) channels[n.channel]?.(payload);
      });
      c.on('error', () => lost(c));
      for (const channel of Object.keys(channels)) await c.query(`LISTEN ${channel}`);
      client = c;
    } catch {
      retry();
    }
  }

  function lost(c: pg.PoolClient) {
    if (client !== c) return;
    client = undefined;
    c.release(true);
    retry();
  }

  function retry() {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void open().then(() => client && ringAll()), RECONNECT_MS);
    timer.unref();
  }

  const opening = open();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await opening;
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners('notification');
        c.release(true);
      }
    },
  };
}
