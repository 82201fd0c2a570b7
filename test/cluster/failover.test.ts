// kill -9 of one of three instances while it holds chain jobs and webhook deliveries: the others take its work over
// once its leases lapse, carry every transaction to a final status, deliver every event, and keep each
// transaction's events in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { clusterSkip, createCluster, SEND, waitFor, webhookReceiver, type Instance } from './cluster.ts';
import { startAnvil } from '../support/anvil.ts';

const skip = await clusterSkip();
const FINAL = new Set(['confirmed', 'failed', 'canceled', 'expired']);

test('kill -9 of an instance with jobs and webhook events in flight: the others finish them, nothing lost, order kept', {
  skip,
}, async (t) => {
  // A block a second keeps transactions in flight (submitted, waiting to be mined and confirmed) for a while.
  const anvil = await startAnvil({ blockTimeMs: 1000 });
  t.after(() => anvil.stop());
  // Slow receiver: deliveries are in flight when the instance dies. Outbox lease = timeout + 5 s; job lease 10 s.
  // Each delivery takes 1.5 s, a transaction's events go one at a time: the victim has deliveries in flight for long.
  const receiver = await webhookReceiver(t, 1500);
  const cluster = await createCluster(t, {
    webhookUrl: receiver.url,
    network: anvil.network('local'),
    env: { WEBHOOK_TIMEOUT_MS: '4000', WEBHOOK_CONCURRENCY: '4' },
  });
  // The victim starts alone and takes the sends, so it surely holds work when it dies however loaded the machine is.
  const victim = cluster.start('victim');
  await victim.listening;
  const db = new pg.Client({ connectionString: cluster.databaseUrl });
  // The database is dropped (its connections cut) when the test ends.
  db.on('error', () => undefined);
  await db.connect();
  t.after(() => db.end().catch(() => undefined));

  const sent = await Promise.all(
    Array.from({ length: 12 }, () => victim.request('POST', '/api/v1/relayers/hot/transactions', { body: SEND })),
  );
  for (const s of sent) assert.equal(s.status, 200, s.text);
  const ids = sent.map((s) => s.body.data.id as string);

  const mine = `%/${victim.child.pid}/%`;
  const leases = async () => {
    const jobs = Number((await db.query('SELECT COUNT(*) AS n FROM jobs WHERE lease_owner LIKE $1', [mine])).rows[0].n);
    const events = Number(
      (
        await db.query("SELECT COUNT(*) AS n FROM webhook_events WHERE status = 'pending' AND lease_owner LIKE $1", [
          mine,
        ])
      ).rows[0].n,
    );
    return { jobs, events };
  };
  // A job is leased only while its handler runs (an RPC call or two); a delivery for 1.5 s. Catch the victim holding
  // both kinds if it does within a while, else holding either.
  const holding = async (both: number) => {
    const l = await leases();
    return (l.jobs > 0 && l.events > 0) || (Date.now() > both && l.jobs + l.events > 0) ? l : undefined;
  };
  const owners = async () =>
    JSON.stringify(
      (
        await db.query(
          "SELECT status, lease_owner, COUNT(*)::int AS n FROM webhook_events GROUP BY 1, 2 UNION ALL SELECT 'job:' || kind, lease_owner, COUNT(*)::int FROM jobs GROUP BY 1, 2",
        )
      ).rows,
    );
  t.diagnostic(`victim pid ${victim.child.pid}, pattern ${mine}`);
  const bothBy = Date.now() + 10_000;
  const orphaned = await waitFor(
    () => holding(bothBy),
    `the victim (pid ${victim.child.pid}) to hold jobs or webhook events in flight`,
  ).catch(async (e: Error) => {
    throw new Error(`${e.message}; leases: ${await owners()}`);
  });
  // The others start as the victim dies: whatever it held is theirs only once its leases lapse.
  const [a, b] = ['a', 'b'].map((name) => cluster.start(name)) as [Instance, Instance];
  victim.child.kill('SIGKILL');
  await victim.exited;
  await Promise.all([a.listening, b.listening]);

  // Every transaction carried to a final status by the survivors, as either of them sees it.
  await waitFor(
    async () => {
      const reads = await Promise.all(ids.map((id) => a.request('GET', `/api/v1/relayers/hot/transactions/${id}`)));
      return reads.every((r) => r.status === 200 && FINAL.has(r.body.data.status));
    },
    'every transaction to reach a final status',
    120_000,
  );
  const records = await Promise.all(
    ids.map(async (id) => (await b.request('GET', `/api/v1/relayers/hot/transactions/${id}`)).body.data),
  );
  assert.ok(
    records.every((r) => r.status === 'confirmed'),
    records.map((r) => r.status).join(','),
  );
  assert.deepEqual(
    records.map((r) => r.nonce).sort((x, y) => x - y),
    Array.from({ length: ids.length }, (_, n) => n),
  );

  // Every event delivered (marked so in the shared outbox) and received.
  await waitFor(
    async () =>
      Number((await db.query("SELECT COUNT(*) AS n FROM webhook_events WHERE status <> 'delivered'")).rows[0].n) === 0,
    'every event delivered',
    120_000,
  );
  const { rows } = await db.query<{ id: string; transaction_id: string; seq: string }>(
    'SELECT id, transaction_id, seq FROM webhook_events ORDER BY seq',
  );
  const answeredAt = (eventId: string) =>
    Math.min(
      ...receiver.deliveries.filter((d) => d.eventId === eventId && d.answered !== undefined).map((d) => d.answered!),
    );
  const arrivedAt = (eventId: string) =>
    Math.min(...receiver.deliveries.filter((d) => d.eventId === eventId).map((d) => d.arrived));
  for (const row of rows) assert.ok(Number.isFinite(answeredAt(row.id)), `event ${row.id} reached the receiver`);

  // Per transaction, across instances: an event first left only after the one before it had been answered.
  for (const id of ids) {
    const events = rows.filter((r) => r.transaction_id === id);
    assert.ok(events.length >= 2, `transaction ${id} reported its changes`);
    for (let i = 1; i < events.length; i++) {
      assert.ok(
        arrivedAt(events[i]!.id) > answeredAt(events[i - 1]!.id),
        `transaction ${id}: event ${i} left before event ${i - 1} was answered`,
      );
    }
  }
  t.diagnostic(
    `in flight at the kill: ${orphaned.jobs} job(s), ${orphaned.events} webhook event(s); ${rows.length} events, ${receiver.deliveries.length} deliveries (re-deliveries of interrupted attempts included)`,
  );

  for (const i of [a, b]) i.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
});
