// What the operator console reads about relayers beyond the reference's routes: a transaction's timeline (every
// state it was written in, its broadcasts, its webhook deliveries) and a relayer's last hour minute by minute.
// Mounted beside the relayers router, under the same key, permissions and rate limit (GET: read on the relayer).
import { Router } from 'express';
import { success } from '../../http/envelope.ts';
import { validator } from '../../http/validate.ts';
import type { RelayerOperations } from '../../domain/types.ts';
import type { TimelineReader } from '../../domain/transactions/timeline.ts';
import type { RelayerActivity } from '../../domain/live/relayer-activity.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { transactionRecord } from '../../openapi/records.ts';
import { minutesRecord, sinceRecord } from '../../openapi/live-records.ts';
import { idSchema } from './schemas.ts';

const relayerParams = { type: 'object', required: ['relayer_id'], properties: { relayer_id: idSchema } } as const;
const transactionParams = {
  type: 'object',
  required: ['relayer_id', 'transaction_id'],
  properties: { relayer_id: idSchema, transaction_id: idSchema },
} as const;

export interface RelayerInsightsDeps {
  ops: RelayerOperations;
  timeline: TimelineReader;
  activity: RelayerActivity;
  /** created_at of the relayer's oldest transaction not yet final, or null. */
  oldestUnfinished(relayerId: string): Promise<string | null>;
}

export function createRelayerInsightsRouter(deps: RelayerInsightsDeps): Router {
  const router = Router();
  const oneRelayer = validator<{ relayer_id: string }, unknown, undefined>({ params: relayerParams });
  const oneTransaction = validator<{ relayer_id: string; transaction_id: string }, unknown, undefined>({
    params: transactionParams,
  });
  // The series are this app's, in memory: they count from its start (the console says so beside the charts).
  const since = new Date().toISOString();
  router.get('/:relayer_id/transactions/:transaction_id/timeline', async (req, res) => {
    const { relayer_id, transaction_id } = oneTransaction(req).params;
    const record = await deps.ops.getTransaction(relayer_id, transaction_id);
    res.json(success(await deps.timeline(record)));
  });
  router.get('/:relayer_id/activity', async (req, res) => {
    const { relayer_id } = oneRelayer(req).params;
    await deps.ops.getRelayer(relayer_id);
    res.json(
      success({
        minutes: deps.activity.read(relayer_id),
        oldest_unfinished_at: await deps.oldestUnfinished(relayer_id),
        since,
      }),
    );
  });
  return router;
}

const at = { type: 'string', format: 'date-time' } as const;
const delivery = { $ref: '#/components/schemas/Delivery' } as const;
const timelineEntry = {
  type: 'object',
  required: ['at', 'kind'],
  description:
    "`status`: the status it was written in (with `status`, `status_reason`); `broadcast`: a hash it was signed and sent under (`hash`, `first`, `noop` for a cancel's or expiry's NOOP); `fees`: fee fields changed (`changes`: {field: {from, to}}, a re-price or replace); `nonce`: a new nonce (`from`, `to`); `webhook`: an event sent for it (`delivery`, and the `status` the event carried).",
  properties: {
    at,
    kind: { enum: ['status', 'broadcast', 'fees', 'nonce', 'webhook'] },
    status: { type: ['string', 'null'] },
    status_reason: { type: ['string', 'null'] },
    hash: { type: 'string' },
    first: { type: 'boolean' },
    noop: { type: 'boolean' },
    changes: { type: 'object', additionalProperties: { type: 'object', properties: { from: {}, to: {} } } },
    from: {},
    to: {},
    delivery,
  },
} as const;

export const relayerInsightRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/:relayer_id/transactions/:transaction_id/timeline',
    summary: "A transaction's timeline",
    description:
      'Every status change with its time, each hash it was broadcast under, fee and nonce changes, and the webhook events sent for it with their delivery results, oldest first. Read from the store (each write of the transaction is kept), so it survives restarts.',
    params: transactionParams,
    data: {
      type: 'object',
      required: ['transaction', 'entries'],
      properties: { transaction: transactionRecord, entries: { type: 'array', items: timelineEntry } },
    },
    errors: ['RELAYER_NOT_FOUND', 'NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/:relayer_id/activity',
    summary: "A relayer's last hour, minute by minute",
    description:
      '60 points, oldest first: `counts` of `sends`, `confirmations` and `failures`, and `latency` p50/p99 in ms of the `submit_ms` (created → first submitted: priced, signed and accepted by a node) and `confirm_ms` (sent → confirmed) stages. Kept in memory by this instance (a restart starts a new hour).',
    params: relayerParams,
    data: {
      type: 'object',
      required: ['minutes', 'oldest_unfinished_at', 'since'],
      properties: {
        minutes: minutesRecord,
        since: sinceRecord,
        oldest_unfinished_at: {
          type: ['string', 'null'],
          format: 'date-time',
          description:
            'created_at of the oldest transaction not yet final (pending, sent, submitted or mined); null when none',
        },
      },
    },
    errors: ['RELAYER_NOT_FOUND'],
  },
];
