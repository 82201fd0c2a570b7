// The service's Prometheus metrics: one registry per app, and the small recorder interface the rest of the code calls.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PluginCallOutcome } from '../domain/plugins/ports.ts';
import { withReferenceMetrics, type ReferenceMetricsDeps } from './reference-metrics.ts';
import { createLaneMetrics, type LaneMetrics } from './lane-metrics.ts';
import { collectTallies, Tallies } from './tallies.ts';

export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed';

export interface TransactionCount {
  relayer_id: string;
  status: string;
  count: number;
}

/**
 * What the rest of the service records. Plain methods, so callers never import prom-client.
 * @example metrics.pluginCall('echo', 'ok', 0.012)
 */
export interface MetricsRecorder {
  /** One finished HTTP request; `route` is the route pattern (`/api/v1/relayers/{relayer_id}`), never the raw URL. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** A request began (+1) or ended, answered or not (-1): the reference's in_flight_requests. */
  httpInFlight?(route: string, delta: 1 | -1): void;
  /** One finished plugin call. */
  pluginCall(pluginId: string, outcome: PluginCallOutcome, seconds: number): void;
  /** The plugin runtime process was restarted by its supervisor. */
  runtimeRestart(): void;
  /** Calls waiting in the runtime's queue, now. */
  setRuntimeQueueDepth(depth: number): void;
  /** A sandbox worker thread stopped answering and was replaced. */
  runtimeWorkerStall(): void;
  /** A plugin was quarantined for crashing the runtime. */
  pluginQuarantined(pluginId: string): void;
  /** One finished webhook attempt: its own duration, and the event's age (recorded → now) when it ended. */
  webhookAttempt(outcome: WebhookAttemptOutcome, seconds: number, ageSeconds: number): void;
  /** One JSON-RPC request to one URL (masked); `error` is its code label when it failed. */
  rpcRequest(event: { network: string; url: string; method: string; seconds: number; error?: string }): void;
  /** An RPC URL's health changed (up: it answers; down: failover skips it for a while). */
  rpcUrlHealth(network: string, url: string, up: boolean): void;
  /** A committed transaction status change (`from` null: a new transaction). */
  transactionTransition(networkType: string, from: string | null, to: string): void;
  /** Non-final transactions of a relayer that nothing moves (it left the config). */
  transactionsUntracked(relayerId: string, count: number): void;
  /** Seconds a transaction spent in one stage (created_to_sent, sent_to_submitted, submitted_to_mined, mined_to_confirmed). */
  transactionStage(network: string, stage: string, seconds: number): void;
  /** A transaction ended: its re-prices and re-broadcasts. */
  transactionEnded(network: string, reprices: number, rebroadcasts: number): void;
  /** An EVM transaction started waiting at its relayer's fee cap (once per wait). */
  transactionFeeCapWait(network: string): void;
  /** Issue 40: the check stopped waiting on a node that held a transaction past its deadline (src/domain/transactions/evm/stuck.ts). */
  transactionStuckEscalation(network: string, cause: string): void;
}

export interface Metrics extends MetricsRecorder {
  /** Key pool lanes (lane-metrics.ts). */
  readonly lanes: LaneMetrics;
  /** The exposition body, Prometheus text format. */
  render(): Promise<string>;
  /** Every metric's name (the reference's `GET /metrics` list). */
  names(): string[];
  /** One metric's exposition text; null for an unknown name. */
  renderOne(name: string): Promise<string | null>;
  readonly contentType: string;
  /** Where the relayer balance gauges are read from at each scrape (the balance watch's last checks). */
  setBalanceSource(source: () => Promise<RelayerBalanceSample[]>): void;
}

/** One relayer's last balance check: smallest unit, and its level (0 ok, 1 under the warning threshold, 2 under min_balance). */
export interface RelayerBalanceSample {
  relayer_id: string;
  balance: number;
  level: number;
}

// Buckets in seconds: HTTP answers are mostly milliseconds; plugin calls and webhooks reach their timeouts (tens of seconds).
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SLOW_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// A transaction's stages run from milliseconds (signing) to hours (a fee spike): up to a day.
const STAGE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600, 21600, 86400];
const COUNT_BUCKETS = [0, 1, 2, 3, 5, 10, 20, 50];
const AGE_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 21600, 86400];

type Kind = 'counter' | 'gauge' | 'histogram';

/** One metric as exposed: its kind, name, help text and labels; a histogram's buckets; a gauge read at each scrape. */
interface MetricDefinition<K extends Kind = Kind, L extends string = string> {
  kind: K;
  name: string;
  help: string;
  labelNames: readonly L[];
  buckets?: number[];
  /** Run at each scrape: a gauge read then, or a counter kept in tallies (tallies.ts). */
  collect?: ((this: Gauge<L>) => void | Promise<void>) | ((this: Counter<L>) => void);
}

const counter = <L extends string = never>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  collect?: (this: Counter<L>) => void,
): MetricDefinition<'counter', L> => ({ kind: 'counter', name, help, labelNames, ...(collect ? { collect } : {}) });
const histogram = <L extends string = never>(
  name: string,
  help: string,
  buckets: number[],
  labelNames: readonly L[] = [],
): MetricDefinition<'histogram', L> => ({ kind: 'histogram', name, help, labelNames, buckets });
const gauge = <L extends string = never>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  collect?: (this: Gauge<L>) => void | Promise<void>,
): MetricDefinition<'gauge', L> => ({ kind: 'gauge', name, help, labelNames, ...(collect ? { collect } : {}) });

type HttpLabels = { route: string; method: string; status: string };
type PluginLabels = { plugin: string; outcome: PluginCallOutcome };
/**
 * HTTP requests by route, method and status; plugin calls by plugin and outcome (counted on the hot path). The
 * reference's counters of the same events read them too (reference-metrics.ts).
 */
const httpTallies = () =>
  new Tallies(
    (route: string, method: string, status: number): HttpLabels => ({ route, method, status: String(status) }),
  );
const pluginTallies = () =>
  new Tallies((plugin: string, outcome: PluginCallOutcome, _: ''): PluginLabels => ({ plugin, outcome }));

/** What the scrape-time metrics read: the balance watch's last checks, the store's transaction counts, the tallies. */
interface ScrapeSources {
  balances(): Promise<RelayerBalanceSample[]>;
  httpRequests: ReturnType<typeof httpTallies>;
  pluginCalls: ReturnType<typeof pluginTallies>;
  /** Plugin calls handed to the runtime and not answered yet: set twice per call, read at the scrape. */
  runtimeQueueDepth(): number;
  transactionCounts(): Promise<TransactionCount[]>;
  store: 'sqlite' | 'postgres';
}

/** A gauge of each relayer's last balance check; a scrape answers while the store is closing or failing (/api/v1/ready reports the store). */
const balanceGauge = (name: string, help: string, sources: ScrapeSources, value: (s: RelayerBalanceSample) => number) =>
  gauge(name, help, ['relayer'] as const, async function () {
    this.reset();
    for (const sample of await sources.balances().catch(() => []))
      this.set({ relayer: sample.relayer_id }, value(sample));
  });

/** Every metric of ours, in the order the registry lists them. */
function definitions(sources: ScrapeSources) {
  return {
    httpRequests: counter(
      'relaybox_http_requests_total',
      'HTTP requests answered, by route pattern, method and status',
      ['route', 'method', 'status'] as const,
      collectTallies(sources.httpRequests),
    ),
    httpDuration: histogram(
      'relaybox_http_request_duration_seconds',
      'HTTP request latency, from arrival to the last byte written',
      HTTP_BUCKETS,
      ['route', 'method', 'status'] as const,
    ),
    pluginCalls: counter(
      'relaybox_plugin_calls_total',
      'Plugin calls, by plugin and outcome (ok, plugin_error, timeout, memory, overload)',
      ['plugin', 'outcome'] as const,
      collectTallies(sources.pluginCalls),
    ),
    pluginDuration: histogram(
      'relaybox_plugin_call_duration_seconds',
      'Plugin call duration, by plugin and outcome',
      SLOW_BUCKETS,
      ['plugin', 'outcome'] as const,
    ),
    runtimeRestarts: counter(
      'relaybox_runtime_restarts_total',
      'Restarts of the plugin runtime process by its supervisor',
    ),
    runtimeQueue: gauge(
      'relaybox_runtime_queue_depth',
      'Plugin calls handed to the runtime and not answered yet (queued or running there)',
      [],
      function () {
        this.set(sources.runtimeQueueDepth());
      },
    ),
    workerStalls: counter(
      'relaybox_runtime_worker_stalls_total',
      'Sandbox worker threads whose event loop stopped answering, detected and replaced',
    ),
    quarantines: counter(
      'relaybox_plugin_quarantines_total',
      'Plugins quarantined for crashing the plugin runtime, by plugin',
      ['plugin'] as const,
    ),
    webhookAttempts: counter(
      'relaybox_webhook_deliveries_total',
      'Webhook delivery attempts, by outcome (delivered; retry: failed, will retry; failed: given up)',
      ['outcome'] as const,
    ),
    webhookDuration: histogram(
      'relaybox_webhook_attempt_duration_seconds',
      'Duration of one webhook delivery attempt, by outcome',
      SLOW_BUCKETS,
      ['outcome'] as const,
    ),
    webhookLatency: histogram(
      'relaybox_webhook_delivery_latency_seconds',
      'Time from the change being recorded to its webhook being delivered, retries included',
      AGE_BUCKETS,
    ),
    rpcDuration: histogram(
      'relaybox_rpc_request_duration_seconds',
      'JSON-RPC requests to chain nodes, by network and URL (scheme, host and port only), answered or failed',
      HTTP_BUCKETS,
      ['network', 'url'] as const,
    ),
    rpcErrors: counter(
      'relaybox_rpc_errors_total',
      'Failed JSON-RPC requests, by network, URL, method and code (a JSON-RPC code, http_<status>, timeout or network)',
      ['network', 'url', 'method', 'code'] as const,
    ),
    rpcUp: gauge('relaybox_rpc_url_up', 'RPC URL health: 1 while it answers, 0 while failover skips it', [
      'network',
      'url',
    ] as const),
    transitions: counter(
      'relaybox_transaction_transitions_total',
      'Committed transaction status changes, by network type, previous status (`new` for a new transaction) and status',
      ['network_type', 'from', 'to'] as const,
    ),
    feeCapWaits: counter(
      'relaybox_transaction_fee_cap_waits_total',
      "EVM transactions that started waiting at their relayer's gas_price_cap (the network asks more; no more re-pricing until fees fall), by network",
      ['network'] as const,
    ),
    stages: histogram(
      'relaybox_transaction_stage_seconds',
      'Seconds a transaction spent in each stage (created_to_sent, sent_to_submitted, submitted_to_mined from its first submission, mined_to_confirmed), by network',
      STAGE_BUCKETS,
      ['network', 'stage'] as const,
    ),
    reprices: histogram(
      'relaybox_transaction_reprices',
      'Versions signed after the first (fee bumps, replacements, NOOPs) per transaction, observed when it ends, by network',
      COUNT_BUCKETS,
      ['network'] as const,
    ),
    rebroadcasts: histogram(
      'relaybox_transaction_rebroadcasts',
      'Broadcasts of a version already broadcast (dropped, evicted, stale) per transaction, observed when it ends, by network',
      COUNT_BUCKETS,
      ['network'] as const,
    ),
    stuckEscalations: counter(
      'relaybox_evm_stuck_escalations_total',
      'EVM waits on the node that passed their deadline and were acted on, by network and cause (held: in the pool, never included; not_received: a URL accepted it, its node never got it; rebroadcasts: re-broadcasts changed nothing; nonce_taken_held; receipt_missing)',
      ['network', 'cause'] as const,
    ),
    balance: balanceGauge(
      'relaybox_relayer_balance',
      "Relayer balance at its last check (every minute and after its transactions move), in its network's smallest unit (wei, lamport, stroop)",
      sources,
      (x) => x.balance,
    ),
    lowBalance: balanceGauge(
      'relaybox_relayer_low_balance',
      'Relayer balance level at its last check: 0 ok, 1 under the warning threshold (2 × min_balance), 2 under min_balance (relayer disabled)',
      sources,
      (x) => x.level,
    ),
    untracked: gauge(
      'relaybox_transactions_untracked',
      'Non-final transactions nothing can move (their relayer left the config), by relayer; also logged every minute',
      ['relayer'] as const,
    ),
    // Global by nature: with a shared store (store="postgres") every instance reports the same figures.
    transactions: gauge(
      'relaybox_transactions',
      'Transactions in the store, by relayer and status; store="postgres" is shared by all instances: aggregate with max(), not sum()',
      ['relayer', 'status', 'store'] as const,
      async function () {
        this.reset();
        let rows: TransactionCount[];
        try {
          rows = await sources.transactionCounts();
        } catch {
          // A scrape must still answer while the store is closing or failing; /api/v1/ready reports the store.
          return;
        }
        for (const row of rows)
          this.set({ relayer: row.relayer_id, status: row.status, store: sources.store }, row.count);
      },
    ),
  };
}

type Made<D> =
  D extends MetricDefinition<'counter', infer L>
    ? Counter<L>
    : D extends MetricDefinition<'gauge', infer L>
      ? Gauge<L>
      : D extends MetricDefinition<'histogram', infer L>
        ? Histogram<L>
        : never;

/** The prom-client object of each definition, registered in the table's order. */
function register<D extends Record<string, MetricDefinition<Kind, string>>>(
  table: D,
  registers: Registry[],
): { [K in keyof D]: Made<D[K]> } {
  const made: Record<string, unknown> = {};
  for (const [key, { kind, name, help, labelNames, buckets, collect }] of Object.entries(table)) {
    const common = { name, help, labelNames: [...labelNames], registers };
    if (kind === 'counter')
      made[key] = new Counter({ ...common, ...(collect ? { collect: collect as (this: Counter) => void } : {}) });
    else if (kind === 'histogram') made[key] = new Histogram({ ...common, buckets: buckets! });
    else made[key] = new Gauge({ ...common, ...(collect ? { collect: collect as (this: Gauge) => void } : {}) });
  }
  return made as { [K in keyof D]: Made<D[K]> };
}

/**
 * Creates the metric objects in a registry of their own (tests build several apps in one process).
 * `transactionCounts` is read on every scrape, so the gauge is exact without being kept in step.
 */
export function createMetrics(deps: {
  transactionCounts: () => Promise<TransactionCount[]>;
  store?: 'sqlite' | 'postgres';
  reference?: Omit<ReferenceMetricsDeps, 'transactionCounts' | 'counts'>;
}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  let balanceSource: () => Promise<RelayerBalanceSample[]> = async () => [];
  const httpRequests = httpTallies();
  const pluginCalls = pluginTallies();
  let runtimeQueueDepth = 0;
  const m = register(
    definitions({
      balances: () => balanceSource(),
      httpRequests,
      pluginCalls,
      runtimeQueueDepth: () => runtimeQueueDepth,
      transactionCounts: deps.transactionCounts,
      store: deps.store ?? 'sqlite',
    }),
    registers,
  );
  // Zero series from the start, so rate() and alerts see each outcome before its first occurrence.
  for (const outcome of ['delivered', 'retry', 'failed']) m.webhookAttempts.inc({ outcome }, 0);

  const ours: Metrics = {
    lanes: createLaneMetrics(registry),
    contentType: registry.contentType,
    render: () => registry.metrics(),
    names: () => registry.getMetricsAsArray().map((m) => m.name),
    renderOne: async (name) => (registry.getSingleMetric(name) ? registry.getSingleMetricAsString(name) : null),
    httpRequest(route, method, status, seconds) {
      httpRequests.add(route, method, status);
      m.httpDuration.observe({ route, method, status: String(status) }, seconds);
    },
    pluginCall(pluginId, outcome, seconds) {
      pluginCalls.add(pluginId, outcome, '');
      m.pluginDuration.observe({ plugin: pluginId, outcome }, seconds);
    },
    runtimeRestart() {
      m.runtimeRestarts.inc();
    },
    setRuntimeQueueDepth(depth) {
      runtimeQueueDepth = depth;
    },
    runtimeWorkerStall() {
      m.workerStalls.inc();
    },
    pluginQuarantined(pluginId) {
      m.quarantines.inc({ plugin: pluginId });
    },
    webhookAttempt(outcome, seconds, ageSeconds) {
      m.webhookAttempts.inc({ outcome });
      m.webhookDuration.observe({ outcome }, seconds);
      if (outcome === 'delivered') m.webhookLatency.observe(ageSeconds);
    },
    rpcRequest({ network, url, method, seconds, error }) {
      m.rpcDuration.observe({ network, url }, seconds);
      if (error !== undefined) m.rpcErrors.inc({ network, url, method, code: error });
    },
    rpcUrlHealth(network, url, up) {
      m.rpcUp.set({ network, url }, up ? 1 : 0);
    },
    transactionsUntracked(relayerId, count) {
      m.untracked.set({ relayer: relayerId }, count);
    },
    transactionStage(network, stage, seconds) {
      m.stages.observe({ network, stage }, seconds);
    },
    transactionEnded(network, repriced, rebroadcast) {
      m.reprices.observe({ network }, repriced);
      m.rebroadcasts.observe({ network }, rebroadcast);
    },
    setBalanceSource(source) {
      balanceSource = source;
    },
    transactionTransition(networkType, from, to) {
      m.transitions.inc({ network_type: networkType, from: from ?? 'new', to });
    },
    transactionFeeCapWait(network) {
      m.feeCapWaits.inc({ network });
    },
    transactionStuckEscalation(network, cause) {
      m.stuckEscalations.inc({ network, cause });
    },
  };
  // The reference's names and labels beside ours, fed by the same calls (src/observability/reference-metrics.ts).
  return withReferenceMetrics(ours, registers, {
    transactionCounts: deps.transactionCounts,
    counts: { requests: httpRequests, pluginCalls },
    ...deps.reference,
  });
}
