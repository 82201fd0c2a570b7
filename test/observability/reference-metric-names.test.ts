// The reference's metric names and labels served beside ours, on its metrics port and path, so its Grafana board
// answers: every metric its board's expressions name is served, and the request and transaction ones count for real.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { build, request } from '../helper.ts';
import { evmBody } from '../transactions/fixtures.ts';
import { waitFor } from '../webhooks/support.ts';

/**
 * The expressions of the reference's board, cmd/prometheus/dashboards/relayer_app_metrics_dashboard.json at v1.8.0
 * (every `expr` of its panels, in order). Its repository has no alert rules (cmd/prometheus/prometheus.yml loads none).
 * The `redis_exporter` job's are Redis's own exporter, not the relayer.
 */
const BOARD_EXPRESSIONS = [
  'count by(method) (raw_requests_total{job="relayer"})',
  'count by(raw_uri) (raw_requests_total{job="relayer"})',
  'group by(status) (raw_requests_total{job="relayer"})',
  'count by(__name__) (requests_total{job="relayer"})',
  'cpu_usage_percentage{job="relayer"}',
  'memory_usage_percentage{job="relayer"}',
  'disk_usage_percentage{job="relayer"}',
  'redis_connected_clients{job="redis_exporter"}',
  'redis_memory_used_bytes{job="redis_exporter"} / 1000000',
  'redis_memory_used_peak_bytes{job="redis_exporter"} / 1000000',
  'redis_mem_fragmentation_ratio{job="redis_exporter"}',
  'rate(redis_keyspace_hits_total{job="redis_exporter"}[5m])',
  'rate(redis_keyspace_misses_total{job="redis_exporter"}[5m])',
  'rate(redis_evicted_keys_total{job="redis_exporter"}[5m])',
  'rate(redis_commands_duration_seconds_total[5m])',
  'rate(redis_commands_processed_total[5m])',
];

/** The relayer's metric families (its src/metrics/mod.rs at v1.8.0) with their label names, which its queries group by. */
const REFERENCE_FAMILIES: Record<string, string[]> = {
  requests_total: ['endpoint', 'method', 'status'],
  raw_requests_total: ['raw_uri', 'method', 'status'],
  request_latency_seconds: ['endpoint', 'method', 'status'],
  error_requests_total: ['endpoint', 'method', 'status'],
  in_flight_requests: ['endpoint'],
  request_timeouts_total: ['endpoint', 'method', 'timeout_type'],
  cpu_usage_percentage: [],
  memory_usage_percentage: [],
  memory_usage_bytes: [],
  total_memory_bytes: [],
  available_memory_bytes: [],
  disk_usage_bytes: [],
  disk_usage_percentage: [],
  file_descriptors_count: [],
  close_wait_sockets_count: [],
  worker_threads: ['runtime'],
  transactions_success_total: ['relayer_id', 'network_type'],
  transactions_failed_total: ['relayer_id', 'network_type', 'failure_reason', 'previous_status'],
  api_rpc_failures_total: ['relayer_id', 'network_type', 'operation_name', 'error_type'],
  transactions_created_total: ['relayer_id', 'network_type'],
  transactions_submitted_total: ['relayer_id', 'network_type'],
  transactions_by_status: ['relayer_id', 'network_type', 'status'],
  transaction_processing_seconds: ['relayer_id', 'network_type', 'stage'],
  queue_pickup_latency_seconds: ['queue_type', 'backend'],
  queue_depth: ['backend', 'queue_type'],
  rpc_call_latency_seconds: ['relayer_id', 'network_type', 'operation_name'],
  stellar_submission_failures_total: ['submit_status', 'result_code'],
  plugin_calls_total: ['plugin_id', 'method', 'status'],
  stellar_try_again_later_total: ['relayer_id', 'tx_status'],
  transactions_try_again_later_success_total: ['relayer_id', 'network_type'],
  transactions_try_again_later_failed_total: ['relayer_id', 'network_type'],
  transactions_insufficient_fee_total: ['relayer_id', 'network_type'],
  transactions_insufficient_fee_success_total: ['relayer_id', 'network_type'],
  transactions_insufficient_fee_failed_total: ['relayer_id', 'network_type'],
};

/** The metric names an expression reads from the job `job` (`name{job="…"}`). */
function metricsOf(expression: string, job: string): string[] {
  return [...expression.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{job="([^"]+)"\}/g)]
    .filter((m) => m[2] === job)
    .map((m) => m[1]!);
}

/** Each sample of `name` in the exposition text: its labels and value. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]),
    );
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

test("every metric the reference's board names is served on the metrics port, at its scrape path, with samples", async (t) => {
  // METRICS_ENABLED=true opens the reference's metrics port (8081 by default; 0 here: any free one).
  const s = await build(t, { env: { METRICS_ENABLED: 'true', METRICS_PORT: '0' } });
  const base = `http://127.0.0.1:${(s.app.metricsServer!.address() as AddressInfo).port}`;
  await s.request('GET', '/api/v1/relayers');
  await s.request('GET', '/api/v1/relayers/no-such-relayer');
  const board = [...new Set(BOARD_EXPRESSIONS.flatMap((e) => metricsOf(e, 'relayer')))];
  assert.deepEqual(board.sort(), [
    'cpu_usage_percentage',
    'disk_usage_percentage',
    'memory_usage_percentage',
    'raw_requests_total',
    'requests_total',
  ]);
  // Prometheus in the reference's set-up scrapes /debug/metrics/scrape on the metrics port (cmd/prometheus/prometheus.yml).
  for (const path of ['/debug/metrics/scrape', '/metrics']) {
    const scrape = await request(base, 'GET', path, { auth: false });
    assert.equal(scrape.status, 200);
    for (const name of board) assert.ok(samples(scrape.text, name).length > 0, `${path}: ${name} has a sample`);
  }
  const text = (await request(base, 'GET', '/debug/metrics/scrape', { auth: false })).text;
  for (const value of ['cpu_usage_percentage', 'memory_usage_percentage', 'disk_usage_percentage'].map(
    (n) => samples(text, n)[0]!.value,
  )) {
    assert.ok(value >= 0 && value <= 100, String(value));
  }
  assert.ok(samples(text, 'memory_usage_percentage')[0]!.value > 0);
  assert.ok(samples(text, 'disk_usage_percentage')[0]!.value > 0);
  // The board's groupings: by method, by raw_uri, by status.
  const raw = samples(text, 'raw_requests_total');
  assert.ok(
    raw.some(
      (r) =>
        r.labels.raw_uri === '/api/v1/relayers' &&
        r.labels.method === 'GET' &&
        r.labels.status === '200' &&
        r.value === 1,
    ),
    JSON.stringify(raw),
  );
  assert.ok(raw.some((r) => r.labels.raw_uri === '/api/v1/relayers/{relayer_id}' && r.labels.status === '404'));
  const requests = samples(text, 'requests_total');
  assert.ok(
    requests.some(
      (r) => r.labels.endpoint === '/api/v1/relayers' && r.labels.method === 'GET' && r.labels.status === '200',
    ),
  );
  assert.ok(samples(text, 'error_requests_total').some((r) => r.labels.status === '404'));
  assert.ok(
    samples(text, 'request_latency_seconds_count').some(
      (r) => r.labels.endpoint === '/api/v1/relayers' && r.value === 1,
    ),
  );
  // The metrics listener's own scrapes are not requests of the API.
  assert.ok(requests.every((r) => !r.labels.endpoint?.includes('metrics')));
  // Ours are still there, beside them.
  assert.ok(samples(text, 'relaybox_http_requests_total').length > 0);
});

test("every family of the reference's is served with its label names, and its transaction counters follow an EVM send", async (t) => {
  const s = await build(t, { devnet: true, env: { METRICS_PORT: '0' } });
  const base = `http://127.0.0.1:${(s.app.metricsServer!.address() as AddressInfo).port}`;
  const sent = await s.request('POST', '/api/v1/relayers/sepolia-example/transactions', { body: evmBody() });
  assert.equal(sent.status, 200, sent.text);
  const scrape = async () => (await request(base, 'GET', '/debug/metrics/scrape', { auth: false })).text;
  await waitFor(
    async () => samples(await scrape(), 'transactions_success_total').some((r) => r.value >= 1),
    'the send confirmed',
    60_000,
  );
  const text = await scrape();
  for (const [name, labels] of Object.entries(REFERENCE_FAMILIES)) {
    assert.match(text, new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'), name);
    for (const sample of samples(text, name).concat(samples(text, `${name}_count`))) {
      assert.deepEqual(
        Object.keys(sample.labels)
          .filter((l) => l !== 'le')
          .sort(),
        [...labels].sort(),
        `${name}: ${JSON.stringify(sample.labels)}`,
      );
    }
  }
  const evm = (name: string) => samples(text, name).find((r) => r.labels.network_type === 'evm')?.value;
  assert.equal(evm('transactions_created_total'), 1);
  assert.equal(evm('transactions_submitted_total'), 1);
  assert.equal(evm('transactions_success_total'), 1);
  assert.ok(
    samples(text, 'transactions_by_status').some(
      (r) =>
        r.labels.relayer_id === 'sepolia-example' &&
        r.labels.network_type === 'evm' &&
        r.labels.status === 'confirmed' &&
        r.value === 1,
    ),
  );
  assert.ok(
    samples(text, 'rpc_call_latency_seconds_count').some(
      (r) => r.labels.network_type === 'evm' && r.labels.operation_name === 'eth_sendRawTransaction',
    ),
    'RPC calls timed by method',
  );
  assert.ok(samples(text, 'transaction_processing_seconds_count').some((r) => r.labels.network_type === 'evm'));
  assert.ok(samples(text, 'in_flight_requests').every((r) => r.value >= 0));
});
