// Idempotency keys across instances: two real `node src/main.ts` processes on one PostgreSQL database, sends with
// the same keys racing on both, decided by the database's unique key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { clusterSkip, createCluster, SEND } from './cluster.ts';
import { startAnvil } from '../support/anvil.ts';

const skip = await clusterSkip();
const PATH = '/api/v1/relayers/hot/transactions';

test('two instances racing on the same idempotency keys create one transaction per key, and both answer it', {
  skip,
}, async (t) => {
  const anvil = await startAnvil();
  t.after(() => anvil.stop());
  const cluster = await createCluster(t, { network: anvil.network('local') });
  const [a, b] = [cluster.start('a'), cluster.start('b')];
  await Promise.all([a.listening, b.listening]);

  // Each key sent twice to each instance at once.
  const keys = Array.from({ length: 8 }, (_, k) => `race-${k}`);
  const answers = await Promise.all(
    keys.flatMap((key) =>
      [a, b, a, b].map((i) =>
        i.request('POST', PATH, { body: SEND, headers: { 'idempotency-key': key } }).then((r) => ({ key, r })),
      ),
    ),
  );
  for (const { r } of answers) assert.equal(r.status, 200, `${r.text}\n${a.output()}\n${b.output()}`);
  const ids = new Map<string, Set<string>>();
  for (const { key, r } of answers) ids.set(key, (ids.get(key) ?? new Set()).add(r.body.data.id));
  for (const [key, set] of ids) assert.equal(set.size, 1, `${key} answered ${[...set].join(', ')}`);
  assert.equal(answers.filter(({ r }) => r.headers.get('idempotent-replayed') === 'true').length, keys.length * 3);

  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT (SELECT COUNT(*)::int FROM transactions) AS transactions, (SELECT COUNT(*)::int FROM idempotency_keys) AS keys',
    );
    assert.deepEqual(rows[0], { transactions: keys.length, keys: keys.length });
    const { rows: taken } = await client.query('SELECT nonce::int AS nonce FROM transactions ORDER BY nonce');
    assert.deepEqual(
      taken.map((r: { nonce: number }) => r.nonce),
      keys.map((_, n) => n),
      'one nonce per key, contiguous',
    );
  } finally {
    await client.end();
  }

  // Later, on either instance: the key still answers its transaction; another request with it is refused.
  const first = [...ids.get('race-0')!][0];
  const retry = await b.request('POST', PATH, { body: SEND, headers: { 'idempotency-key': 'race-0' } });
  assert.equal(retry.body.data.id, first);
  const other = await a.request('POST', PATH, {
    body: { ...SEND, value: 2 },
    headers: { 'idempotency-key': 'race-0' },
  });
  assert.equal(other.status, 409, other.text);
  assert.equal(other.body.message, 'Idempotency key already used with a different request');
});
