// The rate limit is one budget for all instances (Redis), not one per instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterSkip, createCluster, type Instance } from './cluster.ts';

const skip = await clusterSkip();

test('three instances share one rate limit: the total stays within the limit plus one window of slack', {
  skip,
}, async (t) => {
  // 5/s steady plus a burst bucket of 1 per second: 6 per one-second window, for all instances together.
  const cluster = await createCluster(t, { env: { RATE_LIMIT_RPS: '5', RATE_LIMIT_BURST: '5' } });
  const instances = ['a', 'b', 'c'].map((name) => cluster.start(name)) as Instance[];
  await Promise.all(instances.map((i) => i.listening));
  const perWindow = 6;
  const started = Date.now();
  const answers = await Promise.all(
    instances.flatMap((i) => Array.from({ length: 10 }, () => i.request('GET', '/api/v1/relayers'))),
  );
  const windows = Math.ceil((Date.now() - started) / 1000) + 1;
  const statuses = answers.map((a) => a.status);
  assert.ok(
    statuses.every((s) => s === 200 || s === 429),
    statuses.join(','),
  );
  const allowed = statuses.filter((s) => s === 200).length;
  assert.ok(allowed >= 1, 'some requests pass');
  // Per-instance limits would let up to 3 × 6 = 18 through in one window.
  assert.ok(allowed <= perWindow * windows, `${allowed} requests passed in ${windows} window(s) of ${perWindow}`);
  const limited = answers.find((a) => a.status === 429)!;
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  t.diagnostic(
    `${allowed} of 30 passed over ${windows} window(s); limit ${perWindow} per window for all instances together`,
  );
  for (const i of instances) i.child.kill('SIGTERM');
  await Promise.all(instances.map((i) => i.exited));
});
