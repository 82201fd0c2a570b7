// Reads GET /api/v1/events with fetch (an EventSource cannot send the key as a header) and hands each event on;
// reconnects after a pause when the stream ends, until stopped.
import { session } from './api.ts';

export interface TransactionEvent {
  relayer_id: string;
  transaction: Record<string, unknown> & { id: string; status: string };
}

/** Returns stop. */
export function streamEvents(relayerId: string | undefined, onEvent: (e: TransactionEvent) => void): () => void {
  const controller = new AbortController();
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const query = relayerId ? `?relayer_id=${encodeURIComponent(relayerId)}` : '';
        const res = await fetch(`/api/v1/events${query}`, {
          headers: { Authorization: `Bearer ${session.key() ?? ''}`, Accept: 'text/event-stream' },
          signal: controller.signal,
          cache: 'no-store',
        });
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        await readStream(res.body, onEvent);
      } catch {
        // Aborted, refused or cut: wait, then try again (unless stopped).
      }
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  };
  void run();
  return () => controller.abort();
}

async function readStream(body: ReadableStream<Uint8Array>, onEvent: (e: TransactionEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (event === 'transaction_update' && data.length) {
        try {
          onEvent(JSON.parse(data.join('\n')) as TransactionEvent);
        } catch {
          // A malformed event is skipped, never shown.
        }
      }
    }
  }
}
