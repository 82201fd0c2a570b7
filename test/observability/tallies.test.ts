// Counts kept off prom-client on the hot path (src/observability/tallies.ts): what a scrape shows is every tally's
// total, series a mapping leaves out stay out, and a gauge's tallies may go down to zero and stay listed; the
// reference's counters of requests and plugin calls are read from ours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Registry } from 'prom-client';
import { createMetrics } from '../../src/observability/metrics.ts';
import { collectTallies, Tallies } from '../../src/observability/tallies.ts';

test('a counter fed by tallies shows each series with its total at every scrape', async () => {
  const registry = new Registry();
  const answered = new Tallies((route: string, method: string, status: number) => ({
    route,
    method,
    status: String(status),
  }));
  new Counter({
    name: 'answered_total',
    help: 'answered',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect: collectTallies(answered),
  });
  new Counter({
    name: 'failed_total',
    help: 'failed',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect: collectTallies(answered, (l) => (Number(l.status) >= 400 ? l : undefined)),
  });
  for (let i = 0; i < 3; i++) answered.add('/a/{id}', 'POST', 200);
  answered.add('/a/{id}', 'GET', 404);
  const first = await registry.metrics();
  assert.match(first, /^answered_total\{route="\/a\/\{id\}",method="POST",status="200"\} 3$/m);
  assert.match(first, /^answered_total\{route="\/a\/\{id\}",method="GET",status="404"\} 1$/m);
  assert.match(first, /^failed_total\{route="\/a\/\{id\}",method="GET",status="404"\} 1$/m);
  assert.doesNotMatch(first, /^failed_total\{[^}]*status="200"/m);
  // A second scrape counts from the tallies again: nothing is added twice.
  answered.add('/a/{id}', 'POST', 200);
  assert.match(await registry.metrics(), /^answered_total\{route="\/a\/\{id\}",method="POST",status="200"\} 4$/m);
  assert.match(await registry.metrics(), /^answered_total\{route="\/a\/\{id\}",method="POST",status="200"\} 4$/m);
});

test('a gauge fed by tallies goes up and down, and a series back at zero stays listed', async () => {
  const registry = new Registry();
  const running = new Tallies((endpoint: string, _b: '', _c: '') => ({ endpoint }));
  new Gauge({
    name: 'running',
    help: 'running',
    labelNames: ['endpoint'],
    registers: [registry],
    collect: collectTallies(running),
  });
  running.add('/x', '', '', 1);
  running.add('/x', '', '', 1);
  running.add('/y', '', '', 1);
  running.add('/y', '', '', -1);
  const text = await registry.metrics();
  assert.match(text, /^running\{endpoint="\/x"\} 2$/m);
  assert.match(text, /^running\{endpoint="\/y"\} 0$/m);
});

test("the reference's counters read ours: outcomes sharing a status add up, errors are the answers of 400 and above", async () => {
  const metrics = createMetrics({ transactionCounts: async () => [] });
  metrics.pluginCall('echo', 'plugin_error', 0.01);
  metrics.pluginCall('echo', 'memory', 0.01);
  metrics.pluginCall('echo', 'ok', 0.01);
  metrics.httpRequest('/api/v1/plugins/{plugin_id}/call', 'POST', 200, 0.01);
  metrics.httpRequest('/api/v1/plugins/{plugin_id}/call', 'POST', 500, 0.01);
  const text = await metrics.render();
  assert.match(text, /^plugin_calls_total\{plugin_id="echo",method="POST",status="500"\} 2$/m);
  assert.match(text, /^plugin_calls_total\{plugin_id="echo",method="POST",status="200"\} 1$/m);
  assert.match(text, /^relaybox_plugin_calls_total\{plugin="echo",outcome="memory"\} 1$/m);
  assert.match(
    text,
    /^requests_total\{endpoint="\/api\/v1\/plugins\/\{plugin_id\}\/call",method="POST",status="200"\} 1$/m,
  );
  assert.match(
    text,
    /^raw_requests_total\{raw_uri="\/api\/v1\/plugins\/\{plugin_id\}\/call",method="POST",status="500"\} 1$/m,
  );
  assert.match(
    text,
    /^error_requests_total\{endpoint="\/api\/v1\/plugins\/\{plugin_id\}\/call",method="POST",status="500"\} 1$/m,
  );
  assert.doesNotMatch(text, /^error_requests_total\{[^}]*status="200"/m);
});
