// The OpenZeppelin Relayer's metric names and labels (its src/metrics/mod.rs), served beside ours from the same
// registry, so its Grafana board (cmd/prometheus/dashboards/) and queries written for it answer against Relaybox.
// Fed by the same recorder calls as ours; a label we do not know at that call (a relayer's id on an RPC request) is
// left empty, which Prometheus reads as the label being absent.
import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import { cpus, freemem, totalmem } from 'node:os';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PluginCallOutcome } from '../domain/plugins/ports.ts';
import { processEnv } from '../config/process-env.ts';
import { collectTallies, Tallies, type Tally } from './tallies.ts';

/** A row of the store's transaction counts (metrics.ts's TransactionCount, by shape: no import back into it). */
interface TransactionCountRow {
  relayer_id: string;
  status: string;
  count: number;
}

export interface ReferenceMetricsDeps {
  transactionCounts: () => Promise<TransactionCountRow[]>;
  /** A network's type by its name, and a relayer's network type by its id (the reference labels both with network_type). */
  networkTypeOf?: (network: string) => string | undefined;
  relayerNetworkTypeOf?: (relayerId: string) => string | undefined;
  /** The folder whose file system disk_usage_* report (the reference sums every disk the host has). */
  dataDir?: string;
  /**
   * The answered requests and the plugin calls as our own counters tally them (metrics.ts): the reference's
   * counters of the same events are read from them at the scrape, not counted a second time.
   */
  counts: {
    requests: Iterable<Tally<{ route: string; method: string; status: string }>>;
    pluginCalls: Iterable<Tally<{ plugin: string; outcome: PluginCallOutcome }>>;
  };
}

/** The recorder calls the reference's metrics are fed from: MetricsRecorder's (metrics.ts), the same signatures. */
export interface ReferenceFed {
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  httpInFlight(route: string, delta: 1 | -1): void;
  rpcRequest(event: { network: string; url: string; method: string; seconds: number; error?: string }): void;
  transactionTransition(networkType: string, from: string | null, to: string): void;
  transactionStage(network: string, stage: string, seconds: number): void;
}
type Fed = ReferenceFed;

// The reference's buckets, so its histogram_quantile() queries read the same resolution.
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100];
const PROCESSING_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const RPC_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const QUEUE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 14400, 86400];

/** Our plugin call outcomes as the HTTP statuses the reference's plugin_calls_total counts. */
const PLUGIN_STATUS: Record<PluginCallOutcome, string> = {
  ok: '200',
  plugin_error: '500',
  timeout: '504',
  memory: '500',
  overload: '429',
};
const FAILED = new Set(['failed', 'expired', 'canceled']);

/** Metrics the reference has for parts Relaybox does not have (queue brokers, Stellar's retry paths): served, and empty. */
function emptyFamilies(registers: Registry[]): void {
  const counters: Array<[string, string, string[]]> = [
    ['request_timeouts_total', 'Total number of request timeouts', ['endpoint', 'method', 'timeout_type']],
    [
      'stellar_submission_failures_total',
      'Stellar transaction submission failures by status and result code',
      ['submit_status', 'result_code'],
    ],
    ['stellar_try_again_later_total', 'Stellar transactions answered TRY_AGAIN_LATER', ['relayer_id', 'tx_status']],
    [
      'transactions_try_again_later_success_total',
      'Transactions confirmed after a TRY_AGAIN_LATER',
      ['relayer_id', 'network_type'],
    ],
    [
      'transactions_try_again_later_failed_total',
      'Transactions failed after a TRY_AGAIN_LATER',
      ['relayer_id', 'network_type'],
    ],
    ['transactions_insufficient_fee_total', 'Transactions answered insufficient fee', ['relayer_id', 'network_type']],
    [
      'transactions_insufficient_fee_success_total',
      'Transactions confirmed after an insufficient fee',
      ['relayer_id', 'network_type'],
    ],
    [
      'transactions_insufficient_fee_failed_total',
      'Transactions failed after an insufficient fee',
      ['relayer_id', 'network_type'],
    ],
  ];
  for (const [name, help, labelNames] of counters) new Counter({ name, help, labelNames, registers });
  new Histogram({
    name: 'queue_pickup_latency_seconds',
    help: 'Queue pickup latency in seconds (no queue broker here: jobs live in the store)',
    labelNames: ['queue_type', 'backend'],
    buckets: QUEUE_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'queue_depth',
    help: 'Current queue backlog depth (no queue broker here)',
    labelNames: ['backend', 'queue_type'],
    registers,
  });
}

/** Used and total bytes of the file system holding `dir`. */
function disk(dir: string): { used: number; total: number } {
  try {
    const s = statfsSync(dir);
    return { used: (s.blocks - s.bfree) * s.bsize, total: s.blocks * s.bsize };
  } catch {
    return { used: 0, total: 0 };
  }
}

/** MemAvailable (what the reference's sysinfo reads), else the free memory. */
function availableMemory(): number {
  try {
    const kib = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1];
    if (kib) return Number(kib) * 1024;
  } catch {
    // Not Linux: os.freemem() below.
  }
  return freemem();
}

/** Sockets in CLOSE_WAIT (state 08 in /proc/net/tcp and tcp6). */
function closeWaitSockets(): number {
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      for (const line of readFileSync(file, 'utf8').split('\n').slice(1))
        if (line.trim().split(/\s+/)[3] === '08') count++;
    } catch {
      // Absent (not Linux, or no IPv6).
    }
  }
  return count;
}

/** The host's CPU busy share since the last scrape (the reference's global_cpu_usage), from the kernel's counters. */
function cpuSampler(): () => number {
  const totals = () =>
    cpus().reduce(
      (acc, c) => {
        const all = c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle;
        return { busy: acc.busy + all - c.times.idle, all: acc.all + all };
      },
      { busy: 0, all: 0 },
    );
  let last = totals();
  return () => {
    const now = totals();
    const all = now.all - last.all;
    const share = all > 0 ? ((now.busy - last.busy) / all) * 100 : 0;
    last = now;
    return share;
  };
}

function systemGauges(registers: Registry[], dataDir: string): void {
  const cpu = cpuSampler();
  const gauge = (name: string, help: string, value: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(value());
      },
    });
  gauge('cpu_usage_percentage', "Current CPU usage percentage (the host's, since the last scrape)", cpu);
  gauge('total_memory_bytes', 'Total memory in bytes', totalmem);
  gauge('available_memory_bytes', 'Available memory in bytes', availableMemory);
  gauge('memory_usage_bytes', 'Memory usage in bytes (total less available)', () => totalmem() - availableMemory());
  gauge(
    'memory_usage_percentage',
    'Memory usage percentage',
    () => ((totalmem() - availableMemory()) / totalmem()) * 100,
  );
  gauge('disk_usage_bytes', 'Used disk space in bytes (the file system of the data folder)', () => disk(dataDir).used);
  gauge('disk_usage_percentage', 'Disk usage percentage (the file system of the data folder)', () => {
    const d = disk(dataDir);
    return d.total > 0 ? (d.used / d.total) * 100 : 0;
  });
  gauge('file_descriptors_count', 'Current file descriptor count', () => {
    try {
      return readdirSync('/proc/self/fd').length;
    } catch {
      return 0;
    }
  });
  gauge('close_wait_sockets_count', 'Number of CLOSE_WAIT sockets', closeWaitSockets);
  new Gauge({
    name: 'worker_threads',
    help: "Effective worker-thread count per runtime (libuv's pool here)",
    labelNames: ['runtime'],
    registers,
    collect() {
      this.set({ runtime: 'libuv' }, Number(processEnv().UV_THREADPOOL_SIZE) || 4);
    },
  });
}

/** The reference's metric families in `registers`, and the recorder calls that feed them. */
function createReferenceMetrics(registers: Registry[], deps: ReferenceMetricsDeps): Fed {
  const typeOfNetwork = (network: string) => deps.networkTypeOf?.(network) ?? '';
  // Counted on the hot path in tallies, handed to prom-client at each scrape (tallies.ts); the answered requests and
  // plugin calls are our own counters' tallies.
  const { requests: answered, pluginCalls } = deps.counts;
  const running = new Tallies((endpoint: string, _b: '', _c: '') => ({ endpoint }));
  new Counter({
    name: 'requests_total',
    help: 'Total number of HTTP requests',
    labelNames: ['endpoint', 'method', 'status'] as const,
    registers,
    collect: collectTallies(answered, ({ route, method, status }) => ({ endpoint: route, method, status })),
  });
  // raw_uri: the route pattern too. The raw path would make a series per transaction id (and may hold what a client put there).
  new Counter({
    name: 'raw_requests_total',
    help: 'Total number of HTTP requests by URI (the route pattern here)',
    labelNames: ['raw_uri', 'method', 'status'] as const,
    registers,
    collect: collectTallies(answered, ({ route, method, status }) => ({ raw_uri: route, method, status })),
  });
  const latency = new Histogram({
    name: 'request_latency_seconds',
    help: 'Request latency in seconds',
    labelNames: ['endpoint', 'method', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'in_flight_requests',
    help: 'Number of in-flight requests',
    labelNames: ['endpoint'] as const,
    registers,
    collect: collectTallies(running),
  });
  new Counter({
    name: 'error_requests_total',
    help: 'Total number of error responses',
    labelNames: ['endpoint', 'method', 'status'] as const,
    registers,
    collect: collectTallies(answered, ({ route, method, status }) =>
      Number(status) >= 400 ? { endpoint: route, method, status } : undefined,
    ),
  });
  const created = new Counter({
    name: 'transactions_created_total',
    help: 'Total number of transactions created',
    labelNames: ['relayer_id', 'network_type'] as const,
    registers,
  });
  const submitted = new Counter({
    name: 'transactions_submitted_total',
    help: 'Total number of transactions submitted to the network',
    labelNames: ['relayer_id', 'network_type'] as const,
    registers,
  });
  const success = new Counter({
    name: 'transactions_success_total',
    help: 'Total number of successful transactions',
    labelNames: ['relayer_id', 'network_type'] as const,
    registers,
  });
  const failed = new Counter({
    name: 'transactions_failed_total',
    help: 'Total number of failed transactions',
    labelNames: ['relayer_id', 'network_type', 'failure_reason', 'previous_status'] as const,
    registers,
  });
  const processing = new Histogram({
    name: 'transaction_processing_seconds',
    help: "Transaction processing time in seconds, by stage (Relaybox's stages: created_to_sent, sent_to_submitted, submitted_to_mined, mined_to_confirmed)",
    labelNames: ['relayer_id', 'network_type', 'stage'] as const,
    buckets: PROCESSING_BUCKETS,
    registers,
  });
  const rpcLatency = new Histogram({
    name: 'rpc_call_latency_seconds',
    help: 'RPC call latency in seconds',
    labelNames: ['relayer_id', 'network_type', 'operation_name'] as const,
    buckets: RPC_BUCKETS,
    registers,
  });
  const rpcFailures = new Counter({
    name: 'api_rpc_failures_total',
    help: 'Total number of RPC failures (every failed JSON-RPC request here)',
    labelNames: ['relayer_id', 'network_type', 'operation_name', 'error_type'] as const,
    registers,
  });
  new Counter({
    name: 'plugin_calls_total',
    help: 'Total number of plugin calls',
    labelNames: ['plugin_id', 'method', 'status'] as const,
    registers,
    // Outcomes that share a status (plugin_error and memory: 500) add up in one series.
    collect: collectTallies(pluginCalls, ({ plugin, outcome }) => ({
      plugin_id: plugin,
      method: 'POST',
      status: PLUGIN_STATUS[outcome],
    })),
  });
  new Gauge({
    name: 'transactions_by_status',
    help: 'Current number of transactions by status',
    labelNames: ['relayer_id', 'network_type', 'status'] as const,
    registers,
    async collect() {
      this.reset();
      // A scrape answers while the store is closing or failing; /api/v1/ready reports the store.
      const rows = await deps.transactionCounts().catch(() => []);
      for (const row of rows)
        this.set(
          {
            relayer_id: row.relayer_id,
            network_type: deps.relayerNetworkTypeOf?.(row.relayer_id) ?? '',
            status: row.status,
          },
          row.count,
        );
    },
  });
  systemGauges(registers, deps.dataDir ?? process.cwd());
  return {
    httpRequest(route, method, status, seconds) {
      latency.observe({ endpoint: route, method, status: String(status) }, seconds);
    },
    httpInFlight(route, delta) {
      running.add(route, '', '', delta);
    },
    rpcRequest({ network, method, seconds, error }) {
      const labels = { relayer_id: '', network_type: typeOfNetwork(network), operation_name: method };
      rpcLatency.observe(labels, seconds);
      if (error !== undefined) rpcFailures.inc({ ...labels, error_type: error });
    },
    transactionTransition(networkType, from, to) {
      const labels = { relayer_id: '', network_type: networkType };
      if (from === null) created.inc(labels);
      if (to === 'submitted' && from !== 'submitted') submitted.inc(labels);
      if (to === 'confirmed') success.inc(labels);
      if (FAILED.has(to)) failed.inc({ ...labels, failure_reason: to, previous_status: from ?? 'new' });
    },
    transactionStage(network, stage, seconds) {
      processing.observe({ relayer_id: '', network_type: typeOfNetwork(network), stage }, seconds);
    },
  };
}

/** Ours and the reference's from one set of recorder calls. */
export function withReferenceMetrics<M extends Omit<ReferenceFed, 'httpInFlight'>>(
  ours: M,
  registers: Registry[],
  deps: ReferenceMetricsDeps,
): M & Pick<ReferenceFed, 'httpInFlight'> {
  emptyFamilies(registers);
  const theirs = createReferenceMetrics(registers, deps);
  return {
    ...ours,
    httpRequest(route, method, status, seconds) {
      ours.httpRequest(route, method, status, seconds);
      theirs.httpRequest(route, method, status, seconds);
    },
    httpInFlight(route, delta) {
      theirs.httpInFlight(route, delta);
    },
    rpcRequest(event) {
      ours.rpcRequest(event);
      theirs.rpcRequest(event);
    },
    transactionTransition(networkType, from, to) {
      ours.transactionTransition(networkType, from, to);
      theirs.transactionTransition(networkType, from, to);
    },
    transactionStage(network, stage, seconds) {
      ours.transactionStage(network, stage, seconds);
      theirs.transactionStage(network, stage, seconds);
    },
  };
}
