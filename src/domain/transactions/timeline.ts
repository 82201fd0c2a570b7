// A transaction's whole story, read from the store: every state it was written in (the history table), turned into
// status changes, broadcasts under each hash, fee and nonce changes; and the webhook events sent for it with their
// delivery results. The answer of GET /relayers/{id}/transactions/{tx}/timeline and the console's timeline page.
import type { TransactionRecord } from '../types.ts';
import type { TransactionSnapshot, TransactionsRepo } from '../relayers/ports.ts';
import type { WebhookEventRow, WebhookEventsRepo } from '../notifications/ports.ts';
import { toDeliveryView, type DeliveryView } from '../notifications/service.ts';

export type TimelineEntry =
  | { at: string; kind: 'status'; status: string; status_reason: string | null }
  | { at: string; kind: 'broadcast'; hash: string; noop: boolean; first: boolean }
  | { at: string; kind: 'fees'; changes: Record<string, { from: unknown; to: unknown }> }
  | { at: string; kind: 'nonce'; from: unknown; to: unknown }
  | { at: string; kind: 'webhook'; delivery: DeliveryView; status: string | null };

export interface Timeline {
  transaction: TransactionRecord;
  entries: TimelineEntry[];
}

const FEE_FIELDS = ['gas_price', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'fee', 'max_fee'] as const;
/** Webhook events read per transaction: a transaction changes state a bounded number of times. */
const MAX_EVENTS = 500;

const field = (r: TransactionRecord, name: string): unknown => (r as unknown as Record<string, unknown>)[name];
const hashesOf = (r: TransactionRecord): string[] => {
  const all = field(r, 'hashes');
  if (Array.isArray(all)) return all.filter((h): h is string => typeof h === 'string');
  return typeof r.hash === 'string' && r.hash ? [r.hash] : [];
};

/** What changed from one written state to the next, as entries at `at`. */
function changes(before: TransactionRecord | undefined, after: TransactionRecord, at: string): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  // A new reason under the same status is an entry too (the node holds it: replacing; waiting at the fee cap).
  if (!before || before.status !== after.status || (before.status_reason ?? null) !== (after.status_reason ?? null))
    out.push({ at, kind: 'status', status: after.status, status_reason: after.status_reason ?? null });
  const seen = new Set(before ? hashesOf(before) : []);
  const noops = new Set((field(after, 'noop_hashes') as string[] | undefined) ?? []);
  for (const hash of hashesOf(after)) {
    if (!seen.has(hash))
      out.push({
        at,
        kind: 'broadcast',
        hash,
        noop: noops.has(hash) || (field(after, 'is_canceled') === true && hash === after.hash && seen.size > 0),
        first: seen.size === 0,
      });
    seen.add(hash);
  }
  if (before) {
    const fees: Record<string, { from: unknown; to: unknown }> = {};
    for (const name of FEE_FIELDS) {
      const from = field(before, name);
      const to = field(after, name);
      if (from !== to && (from !== undefined || to !== undefined)) fees[name] = { from: from ?? null, to: to ?? null };
    }
    if (Object.keys(fees).length) out.push({ at, kind: 'fees', changes: fees });
    if (field(before, 'nonce') !== field(after, 'nonce'))
      out.push({ at, kind: 'nonce', from: field(before, 'nonce') ?? null, to: field(after, 'nonce') ?? null });
  }
  return out;
}

/** The status a webhook event carried (its body is the record as it was then). */
function eventStatus(body: string): string | null {
  try {
    const status = (JSON.parse(body) as { payload?: { status?: unknown } }).payload?.status;
    return typeof status === 'string' ? status : null;
  } catch {
    return null;
  }
}

function buildTimeline(
  record: TransactionRecord,
  history: readonly TransactionSnapshot[],
  events: readonly WebhookEventRow[],
): Timeline {
  const entries: TimelineEntry[] = [];
  // Written before the history table existed: the record's own times are all there is.
  if (history.length === 0) entries.push(...changes(undefined, record, record.created_at));
  let before: TransactionRecord | undefined;
  for (const snapshot of history) {
    entries.push(...changes(before, snapshot.record, new Date(snapshot.at_ms).toISOString()));
    before = snapshot.record;
  }
  for (const event of events)
    entries.push({
      at: event.created_at,
      kind: 'webhook',
      delivery: toDeliveryView(event),
      status: eventStatus(event.body),
    });
  // Stable: entries written at the same instant keep their order (status before its broadcast).
  entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return { transaction: record, entries };
}

export function createTimelineReader(deps: {
  transactions: Pick<TransactionsRepo, 'history'>;
  webhookEvents: Pick<WebhookEventsRepo, 'listByTransaction'>;
}) {
  return async (record: TransactionRecord): Promise<Timeline> => {
    const [history, events] = await Promise.all([
      deps.transactions.history(record.id),
      deps.webhookEvents.listByTransaction(record.id, MAX_EVENTS),
    ]);
    return buildTimeline(record, history, events);
  };
}

export type TimelineReader = ReturnType<typeof createTimelineReader>;
