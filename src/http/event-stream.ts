// Server-sent events on one response: headers, heartbeat comments, and a bounded buffer per client. A client that
// reads slower than events come is dropped (its connection ended), never buffered without limit; it reconnects and
// reads the current state again.
import type { Response } from 'express';

export interface EventStreamOptions {
  /** Bytes written but not yet taken by the client before it counts as too slow. */
  maxBufferedBytes: number;
  heartbeatMs: number;
  /** Called once when the stream ends, for whatever reason. */
  onClose(reason: 'client' | 'slow' | 'server'): void;
}

export interface EventStream {
  /** Writes one event; false (and the stream is ended) when the client is too slow to take it. */
  send(event: string, data: unknown, id?: number): boolean;
  /** Ends the stream from the server's side (shutdown). */
  end(): void;
}

export function openEventStream(res: Response, options: EventStreamOptions): EventStream {
  res.status(200);
  res.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.flushHeaders();
  let open = true;
  const close = (reason: 'client' | 'slow' | 'server') => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    options.onClose(reason);
    if (reason === 'slow') res.destroy();
    else if (reason === 'server') res.end();
  };
  const write = (text: string): boolean => {
    if (!open) return false;
    // writableLength: what Node holds for this socket beyond what the kernel took. Past the limit, the client is dropped.
    if (res.writableLength + text.length > options.maxBufferedBytes) {
      close('slow');
      return false;
    }
    res.write(text);
    return true;
  };
  const heartbeat = setInterval(() => write(': heartbeat\n\n'), options.heartbeatMs);
  heartbeat.unref();
  res.on('close', () => close('client'));
  // Tells EventSource-style readers how soon to reconnect; the comment opens the stream at once.
  write('retry: 3000\n: connected\n\n');
  return {
    send(event, data, id) {
      return write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end: () => close('server'),
  };
}
