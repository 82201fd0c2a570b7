// What a newcomer's first run shows: the shipped config queues no webhook for a receiver nobody started, and the
// metrics listener says where it listens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../helper.ts';

test('with the shipped config no relayer points at a notification, so a send queues no webhook for a receiver nobody started', async (t) => {
  const s = await build(t, { devnet: true });
  const relayers = await s.request('GET', '/api/v1/relayers');
  assert.equal(relayers.status, 200);
  assert.deepEqual(
    relayers.body.data.map((r: { notification_id: string | null }) => r.notification_id),
    relayers.body.data.map(() => null),
  );
  const sent = await s.request('POST', '/api/v1/relayers/sepolia-example/transactions', {
    body: { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' },
  });
  assert.equal(sent.status, 200, sent.text);
  const deliveries = await s.request('GET', '/api/v1/notifications/example-webhook/deliveries');
  assert.equal(deliveries.status, 200, deliveries.text);
  assert.deepEqual(deliveries.body.data, []);
});

test('METRICS_PORT=0 picks a free port and the log line names the address actually bound', async (t) => {
  const s = await build(t, { env: { METRICS_PORT: '0' } });
  const line = s.logs.find((l) => l.msg === 'metrics listening') as
    | { address: { address: string; port: number } }
    | undefined;
  assert.ok(line, 'a metrics listening line');
  const bound = s.app.metricsServer!.address() as { port: number };
  assert.ok(bound.port > 0);
  assert.equal(line.address.port, bound.port);
  const res = await fetch(`http://${line.address.address}:${line.address.port}/metrics`);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /relaybox_http_requests_total/);
});
