// Issue 40's acceptance case: two real instances on one PostgreSQL database (and Redis), one automining anvil, 300
// sends round-robin over both; every one must confirm (the run that found the issue left 59–94 `submitted` for good),
// each of the relayer's nonces used once on chain. Part of npm run test:chaos; alone, repeated:
//   TWO_INSTANCES_RUNS=10 npm run test:two-instances
// Each run prints one line of figures (diagnostic) and all of them at the end.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { numberToHex, type Hex } from 'viem';
import { clusterSkip, createCluster, SEND, waitFor, type Instance } from '../cluster/cluster.ts';
import { ANVIL_ADDRESSES, startAnvil } from '../support/anvil.ts';

const skip = await clusterSkip();
const RUNS = Number(process.env.TWO_INSTANCES_RUNS ?? 1);
const SENDS = Number(process.env.TWO_INSTANCES_SENDS ?? 300);
/** Sends in flight at once, spread round-robin over the two instances. */
const IN_FLIGHT = Number(process.env.TWO_INSTANCES_IN_FLIGHT ?? 16);
/** The body: explicit prices (SEND), or TWO_INSTANCES_PRICING=speed for `speed: fast` (the node prices each send). */
const BODY = process.env.TWO_INSTANCES_PRICING === 'speed' ? { to: SEND.to, value: 1, speed: 'fast' } : SEND;
/** The acceptance run's wait. */
const CONFIRM_WITHIN_MS = 240_000;
const RELAYER = ANVIL_ADDRESSES[0]!;

interface Figures {
  run: number;
  acked: number;
  confirmed: number;
  sendMs: number;
  allConfirmedMs: number | null;
  escalations: Record<string, number>;
  replaced: number;
}
const figures: Figures[] = [];
after(() => {
  if (figures.length > 0)
    console.log(`\ntwo instances, ${SENDS} sends each run:\n${figures.map((f) => JSON.stringify(f)).join('\n')}`);
});

/** relaybox_evm_stuck_escalations_total by cause, summed over the instances. */
async function escalations(instances: Instance[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const i of instances) {
    const text = (await i.request('GET', '/metrics', { auth: false })).text;
    for (const m of text.matchAll(/relaybox_evm_stuck_escalations_total\{[^}]*cause="([a-z_]+)"[^}]*\} (\d+)/g))
      out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  }
  return out;
}

for (let run = 1; run <= RUNS; run++) {
  test(`two instances on PostgreSQL, ${SENDS} sends round-robin on an automining anvil: all confirm (run ${run} of ${RUNS})`, {
    skip,
    timeout: CONFIRM_WITHIN_MS + 180_000,
  }, async (t) => {
    const anvil = await startAnvil();
    t.after(() => anvil.stop());
    const cluster = await createCluster(t, { network: anvil.network('local') });
    const instances = [cluster.start('a'), cluster.start('b')];
    await Promise.all(instances.map((i) => i.listening));
    const db = new pg.Client({ connectionString: cluster.databaseUrl });
    // The test database is dropped at the end, which ends this connection too.
    db.on('error', () => {});
    await db.connect();

    const started = Date.now();
    let next = 0;
    let acked = 0;
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < SENDS) {
          const i = next++;
          const res = await instances[i % 2]!.request('POST', '/api/v1/relayers/hot/transactions', {
            body: { ...BODY, value: 1000 + i },
          });
          if (res.status === 200) acked++;
          else failures.push(`${res.status} ${res.text.slice(0, 200)}`);
        }
      }),
    );
    const sendMs = Date.now() - started;
    assert.deepEqual(failures, [], 'every send acknowledged');

    const counts = async () =>
      Object.fromEntries(
        (
          await db.query<{ status: string; n: number }>(
            'SELECT status, COUNT(*)::int AS n FROM transactions GROUP BY status',
          )
        ).rows.map((r) => [r.status, r.n]),
      );
    let last: Record<string, number> = {};
    let allConfirmedMs: number | null = null;
    try {
      await waitFor(
        async () => ((last = await counts()).confirmed ?? 0) === SENDS,
        `all ${SENDS} confirmed`,
        CONFIRM_WITHIN_MS,
      );
      allConfirmedMs = Date.now() - started;
    } catch {
      // Reported below with what was left.
    }
    const replaced = (
      await db.query<{ n: number }>(
        "SELECT COUNT(*)::int AS n FROM transactions WHERE jsonb_array_length((record::jsonb)->'hashes') > 1",
      )
    ).rows[0]!.n;
    await db.end();
    const row: Figures = {
      run,
      acked,
      confirmed: last.confirmed ?? 0,
      sendMs,
      allConfirmedMs,
      escalations: await escalations(instances),
      replaced,
    };
    figures.push(row);
    t.diagnostic(JSON.stringify(row));
    assert.equal(
      last.confirmed,
      SENDS,
      `all confirmed within ${CONFIRM_WITHIN_MS} ms; statuses ${JSON.stringify(last)}`,
    );

    // Each nonce once on chain: the relayer's mined transactions hold 0..SENDS-1 exactly.
    const head = Number(await anvil.blockNumber());
    const nonces: number[] = [];
    for (let b = 0; b <= head; b++) {
      const block = await anvil.rpc<{ transactions: Array<{ from: Hex; nonce: Hex }> }>('eth_getBlockByNumber', [
        numberToHex(b),
        true,
      ]);
      for (const tx of block.transactions)
        if (tx.from.toLowerCase() === RELAYER.toLowerCase()) nonces.push(Number(tx.nonce));
    }
    nonces.sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      Array.from({ length: SENDS }, (_, i) => i),
      'each nonce used once',
    );
    assert.equal(await anvil.pendingNonce(RELAYER), SENDS);
  });
}
