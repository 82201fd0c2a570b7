// The console's in-memory series: the last hour minute by minute (bounded, wrapping), a relayer's activity from its
// transaction changes, and a plugin's recent calls (bounded, texts cut). Pure modules, driven with explicit times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMinuteSeries, quantile } from '../../src/domain/live/minute-series.ts';
import { createRelayerActivity } from '../../src/domain/live/relayer-activity.ts';
import { createPluginCallLog, RECENT_CALLS } from '../../src/domain/live/plugin-calls.ts';
import type { TransactionRecord } from '../../src/domain/types.ts';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;

test('a minute series keeps 60 minutes, oldest first, and a slot an hour old is reused empty', () => {
  const s = createMinuteSeries();
  s.count('sends', T0);
  s.count('sends', T0 + 59_000);
  s.count('sends', T0 + MIN);
  const now = s.read(T0 + MIN);
  assert.equal(now.length, 60);
  assert.equal(now.at(-1)!.at, T0 + MIN);
  assert.deepEqual([now.at(-2)!.counts, now.at(-1)!.counts], [{ sends: 2 }, { sends: 1 }]);
  // An hour later the same slots hold the new minutes; the old counts are gone.
  s.count('sends', T0 + 60 * MIN);
  const later = s.read(T0 + 60 * MIN);
  assert.deepEqual(later.at(-1)!.counts, { sends: 1 });
  assert.equal(
    later.reduce((n, m) => n + (m.counts.sends ?? 0), 0),
    2,
    'T0 fell out of the hour, T0 + 1 min did not',
  );
});

test('latency samples give p50 and p99 per minute, and a busy minute keeps a bounded number of them', () => {
  const s = createMinuteSeries();
  for (let i = 1; i <= 100; i++) s.sample('confirm_ms', i, T0);
  const point = s.read(T0).at(-1)!;
  assert.deepEqual(point.latency.confirm_ms, { p50: 50, p99: 99, n: 100 });
  for (let i = 0; i < 10_000; i++) s.sample('busy', 7, T0);
  assert.equal(s.read(T0).at(-1)!.latency.busy!.n, 10_000, 'all counted');
  assert.equal(quantile([], 0.5), 0);
});

const record = (status: string, extra: Partial<TransactionRecord> & Record<string, unknown> = {}) =>
  ({
    id: 'tx',
    relayer_id: 'r',
    status,
    status_reason: null,
    created_at: new Date(T0).toISOString(),
    sent_at: null,
    confirmed_at: null,
    ...extra,
  }) as unknown as TransactionRecord;

test("a relayer's activity counts sends, confirmations and failures and times the submit and confirm stages once", () => {
  const a = createRelayerActivity();
  a.observe(record('sent', { hashes: ['0x1'] }), null, T0 + 10);
  a.observe(record('submitted', { hashes: ['0x1'] }), 'sent', T0 + 110);
  // A cancel's NOOP submitted later is not the submit stage again.
  a.observe(record('submitted', { hashes: ['0x1', '0x2'] }), 'sent', T0 + 5_000);
  a.observe(
    record('confirmed', {
      sent_at: new Date(T0 + 100).toISOString(),
      confirmed_at: new Date(T0 + 1_100).toISOString(),
    }),
    'submitted',
    T0 + 1_200,
  );
  a.observe(record('failed'), 'submitted', T0 + 1_300);
  a.observe(record('failed'), 'failed', T0 + 1_400);
  const point = a.read('r', T0 + 1_500).at(-1)!;
  assert.deepEqual(point.counts, { sends: 1, confirmations: 1, failures: 1 });
  assert.deepEqual(point.latency.submit_ms, { p50: 110, p99: 110, n: 1 });
  assert.deepEqual(point.latency.confirm_ms, { p50: 1_000, p99: 1_000, n: 1 });
  assert.deepEqual(a.read('other', T0).at(-1)!.counts, {});
});

test("a plugin's recent calls are bounded, newest first, and what they keep is cut to size", () => {
  const log = createPluginCallLog();
  for (let i = 0; i < RECENT_CALLS + 5; i++) {
    log.record(
      'p',
      {
        request_id: `r${i}`,
        outcome: i % 2 ? 'ok' : 'plugin_error',
        duration_ms: i,
        result: i % 2 ? '1' : null,
        error: i % 2 ? null : { code: 'E', message: 'no' },
        logs: [{ level: 'log', message: 'x' }],
        traces: [{ method: 'm' }],
      },
      T0 + i,
    );
  }
  const recent = log.recent('p');
  assert.equal(recent.length, RECENT_CALLS);
  assert.equal(recent[0]!.request_id, `r${RECENT_CALLS + 4}`);
  assert.deepEqual(recent[0]!.traces, ['{"method":"m"}']);
  log.record('big', {
    request_id: 'b',
    outcome: 'ok',
    duration_ms: 1,
    result: 'y'.repeat(10_000),
    error: null,
    logs: Array.from({ length: 500 }, () => ({ level: 'log', message: 'z'.repeat(5_000) })),
    traces: undefined,
  });
  const [big] = log.recent('big');
  assert.equal(big!.result!.length, 4_000);
  assert.equal(big!.logs.length, 100);
  assert.equal(big!.logs[0]!.message.length, 4_000);
  assert.equal(big!.truncated, true);
  const minutes = log.minutes('p', T0 + MIN);
  assert.equal(
    minutes.reduce((n, m) => n + (m.counts.calls ?? 0), 0),
    RECENT_CALLS + 5,
  );
  assert.equal(
    minutes.reduce((n, m) => n + (m.counts.errors ?? 0), 0),
    Math.ceil((RECENT_CALLS + 5) / 2),
  );
  assert.deepEqual(log.recent('none'), []);
});
