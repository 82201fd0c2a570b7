// GET /api/v1/events: the live events as server-sent events (transaction changes), scoped to the relayers the key
// may read, or to one (`relayer_id`). The console reads it with fetch (the key in a header, never in the URL).
import { Router } from 'express';
import type { Logger } from 'pino';
import { authorize, credentialStillValid, listScope } from '../../http/auth.ts';
import { openEventStream, type EventStream } from '../../http/event-stream.ts';
import { validator } from '../../http/validate.ts';
import type { LiveFeed } from '../../domain/live/feed.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { idSchema } from '../relayers/schemas.ts';

const eventsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    relayer_id: {
      ...idSchema,
      description: "Only this relayer's events (needs read on it); absent: every relayer the key may read",
    },
  },
} as const;

export interface EventsRouterOptions {
  feed: LiveFeed;
  /** Throws RELAYER_NOT_FOUND for an unknown relayer. */
  requireRelayer(id: string): Promise<unknown>;
  logger: Logger;
  /** Per client: what may wait for a slow reader before it is dropped (default 1 MiB). */
  maxBufferedBytes?: number;
  heartbeatMs?: number;
  /** How often an open stream's key is looked up again: a deleted key's stream ends (default 5 s). */
  recheckMs?: number;
}

export interface EventsRouter {
  router: Router;
  /** Open streams now. */
  readonly clients: number;
  /** Ends every open stream (shutdown: they would otherwise hold the server open). */
  closeAll(): void;
}

export function createEventsRouter(options: EventsRouterOptions): EventsRouter {
  const input = validator<unknown, { relayer_id?: string }, undefined>({ query: eventsQuery });
  const streams = new Set<EventStream>();
  let seq = 0;
  const router = Router();
  router.get('/', async (req, res) => {
    const { relayer_id } = input(req).query;
    if (relayer_id !== undefined) {
      authorize(res, { area: 'relayer', id: relayer_id, action: 'read' });
      await options.requireRelayer(relayer_id);
    }
    const scope = relayer_id !== undefined ? [relayer_id] : listScope(res, 'relayer');
    const wanted = (id: string) => scope === 'all' || scope.includes(id);
    const requestId = res.locals.requestId as string | undefined;
    let unsubscribe = () => {};
    const recheck = setInterval(() => {
      credentialStillValid(res).then(
        (valid) => {
          if (valid) return;
          options.logger.info({ requestId }, 'events stream: its API key was deleted, ended');
          stream.end();
        },
        () => undefined, // the store did not answer: ask again next time rather than end a valid stream
      );
    }, options.recheckMs ?? 5_000);
    recheck.unref();
    const stream = openEventStream(res, {
      maxBufferedBytes: options.maxBufferedBytes ?? 1024 * 1024,
      heartbeatMs: options.heartbeatMs ?? 15_000,
      onClose(reason) {
        clearInterval(recheck);
        unsubscribe();
        streams.delete(stream);
        if (reason === 'slow') options.logger.warn({ requestId }, 'events stream: client too slow, dropped');
      },
    });
    streams.add(stream);
    unsubscribe = options.feed.subscribe((event) => {
      if (wanted(event.relayer_id))
        stream.send(event.type, { relayer_id: event.relayer_id, transaction: event.transaction }, ++seq);
    });
  });
  return {
    router,
    get clients() {
      return streams.size;
    },
    closeAll() {
      for (const stream of [...streams]) stream.end();
    },
  };
}

export const eventRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/',
    summary: 'Live events (server-sent events)',
    description: [
      'A `text/event-stream` of every committed transaction change: `event: transaction_update`, `data: {"relayer_id", "transaction"}` (the record as `GET …/transactions/{id}` answers it), an increasing `id`. A comment (`: heartbeat`) every 15 s keeps proxies from closing it.',
      'Scoped to the relayers the key may read (every relayer for `all`), or to `relayer_id`. Send the key in the `Authorization` header: a browser reads the stream with `fetch` (an `EventSource` cannot send headers; never put the key in a URL).',
      'Ends when its API key is deleted (checked every 5 s). Bounded per client: a client that does not read fast enough (1 MiB waiting) is dropped; reconnect and read the current state again. Several instances on one database: the changes of every instance, whichever one the stream is open on.',
    ].join('\n\n'),
    query: eventsQuery,
    produces: 'text/event-stream',
    errors: ['RELAYER_NOT_FOUND'],
  },
];
