// Three real `node src/main.ts` processes on one PostgreSQL database and one Redis: start-up together on an empty
// database, sends spread over all three, and a duplicate notification id refused by any of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { clusterSkip, createCluster, SEND, waitFor, webhookReceiver, type Instance } from './cluster.ts';
import { startAnvil } from '../support/anvil.ts';

const skip = await clusterSkip();

test('three instances on one database: start together, share sends, nonces and notifications', { skip }, async (t) => {
  const receiver = await webhookReceiver(t, 0);
  const anvil = await startAnvil();
  t.after(() => anvil.stop());
  const cluster = await createCluster(t, { webhookUrl: receiver.url, network: anvil.network('local') });
  const instances: Instance[] = ['a', 'b', 'c'].map((name) => cluster.start(name));

  await t.test(
    'started at once on an empty database: every one serves, the schema is migrated exactly once',
    async () => {
      await Promise.all(instances.map((i) => i.listening));
      const migrated = instances.filter((i) => i.output().includes('"database migrated"'));
      assert.equal(migrated.length, 1, instances.map((i) => `${i.name}:\n${i.output()}`).join('\n'));
      for (const i of instances) {
        // Errors of the start-up itself (the plugin runtime's watchdog may speak up on a loaded machine: not ours here).
        const errors = i
          .output()
          .split('\n')
          .filter((l) => /"level":(50|60)/.test(l) && !l.includes('"component":"plugin-runtime"'));
        assert.deepEqual(errors, [], `${i.name} logged an error`);
        // Readiness asks PostgreSQL and Redis each time (2 s per check): on a loaded machine the first answers may lag.
        const ready = await waitFor(async () => {
          const r = await i.request('GET', '/api/v1/ready', { auth: false });
          return r.status === 200 ? r : undefined;
        }, `${i.name} to be ready`);
        const { store, redis, runtime } = ready.body.components;
        assert.deepEqual(
          [store.status, redis.status, redis.primary_pool.connected, runtime.status],
          ['healthy', 'healthy', true, 'healthy'],
        );
      }
      const client = new pg.Client({ connectionString: cluster.databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT version, COUNT(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version',
        );
        assert.ok(rows.length >= 6);
        assert.ok(rows.every((r: { n: number }) => r.n === 1));
        // The config's notification and relayer were seeded once, not three times.
        assert.equal((await client.query('SELECT COUNT(*)::int AS n FROM notifications')).rows[0].n, 1);
      } finally {
        await client.end();
      }
    },
  );

  await t.test(
    'concurrent sends over all three: every acknowledged send is readable everywhere, nonces distinct and contiguous',
    async () => {
      const perInstance = 20;
      const answers = await Promise.all(
        instances.flatMap((i) =>
          Array.from({ length: perInstance }, () =>
            i.request('POST', '/api/v1/relayers/hot/transactions', { body: SEND }),
          ),
        ),
      );
      const errorLines = () =>
        instances
          .flatMap((i) =>
            i
              .output()
              .split('\n')
              .filter((l) => /"level":(50|60)/.test(l))
              .map((l) => `${i.name}: ${l}`),
          )
          .join('\n');
      for (const a of answers) assert.equal(a.status, 200, `${a.text}\n${errorLines()}`);
      const sent = answers.map((a) => a.body.data as { id: string; nonce: number });
      const nonces = sent.map((s) => s.nonce).sort((x, y) => x - y);
      assert.deepEqual(
        nonces,
        Array.from({ length: sent.length }, (_, n) => n),
      );
      for (const i of instances) {
        const reads = await Promise.all(sent.map((s) => i.request('GET', `/api/v1/relayers/hot/transactions/${s.id}`)));
        for (const [k, r] of reads.entries()) {
          assert.equal(r.status, 200, `${i.name} cannot read ${sent[k]!.id}`);
          assert.equal(r.body.data.nonce, sent[k]!.nonce);
        }
        const list = await i.request('GET', '/api/v1/relayers/hot/transactions?per_page=1');
        assert.equal(list.body.pagination.total_items, sent.length);
      }
    },
  );

  await t.test(
    'a duplicate notification id is refused with 409 by any instance, also when all three race for it',
    async () => {
      const [a, b, c] = instances as [Instance, Instance, Instance];
      const created = await a.request('POST', '/api/v1/notifications', {
        body: { id: 'dup', url: 'https://example.com/hook' },
      });
      assert.equal(created.status, 201, created.text);
      for (const i of [a, b, c]) {
        const again = await i.request('POST', '/api/v1/notifications', {
          body: { id: 'dup', url: 'https://example.com/other' },
        });
        assert.equal(again.status, 409, `${i.name}: ${again.text}`);
      }
      const race = await Promise.all(
        [a, b, c].map((i) =>
          i.request('POST', '/api/v1/notifications', { body: { id: 'race', url: 'https://example.com/race' } }),
        ),
      );
      assert.deepEqual(race.map((r) => r.status).sort(), [201, 409, 409]);
    },
  );

  await t.test('each instance stops cleanly on SIGTERM', async () => {
    for (const i of instances) i.child.kill('SIGTERM');
    assert.deepEqual(await Promise.all(instances.map((i) => i.exited)), [0, 0, 0]);
  });
});
