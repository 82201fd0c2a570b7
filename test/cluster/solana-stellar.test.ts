// Solana and Stellar relaying with two real `node src/main.ts` processes on one PostgreSQL database: sends go to both,
// one instance is killed (SIGKILL) with transactions in flight, and the other finishes every one, each landing once.
// The networks are SIMULATED and shared by both instances: Solana = a JSON-RPC stand-in over the real SVM (litesvm),
// Stellar = a Stellar RPC stand-in that checks the real XDR and signatures (test/support/*-rpc.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-base';
import { startSolanaSim } from '../support/solana-rpc.ts';
import { startStellarSim } from '../support/stellar-rpc.ts';
import { solanaKey, solanaSetup, transfer } from '../transactions/solana-support.ts';
import { payment, stellarSetup } from '../transactions/stellar-support.ts';
import { waitAllFinal } from '../transactions/wait-final.ts';
import { clusterSkip, createCluster } from './cluster.ts';

const skip = await clusterSkip();
const PER_INSTANCE = 10;

test('two instances on PostgreSQL relay Solana and Stellar; one killed mid-flight, the other finishes every transaction once (simulated networks)', {
  skip,
}, async (t) => {
  const solana = await startSolanaSim({ slotMs: 20, finalizeDepth: 4 });
  const stellar = await startStellarSim({ ledgerMs: 50 });
  t.after(() => Promise.all([solana.close(), stellar.close()]));
  const sol = solanaSetup(solana, 'sol');
  const xlm = stellarSetup(stellar, 'xlm');
  const cluster = await createCluster(t, {
    config: {
      networks: [...sol.config.networks!, ...xlm.config.networks!],
      signers: [...sol.config.signers!, ...xlm.config.signers!],
      relayers: [...sol.config.relayers!, ...xlm.config.relayers!],
      notifications: [],
      plugins: [],
    },
  });
  const a = cluster.start('a');
  await a.listening; // the first one migrates the database
  const b = cluster.start('b');
  await b.listening;

  const solDest = solanaKey('cluster destination').signer.address;
  const xlmDest = Keypair.random().publicKey();
  stellar.fund(xlmDest, 10_000_000n);
  // Distinct amounts: distinct transfers (two instances building the very same one in one slot would be one transaction).
  const sends = await Promise.all(
    [a, b].flatMap((i, k) => [
      ...Array.from({ length: PER_INSTANCE }, (_, j) =>
        i.request('POST', '/api/v1/relayers/sol/transactions', {
          body: { instructions: [transfer(sol.address, solDest, 1_000_000n + BigInt(k * PER_INSTANCE + j))] },
        }),
      ),
      ...Array.from({ length: PER_INSTANCE }, (_, j) =>
        i.request('POST', '/api/v1/relayers/xlm/transactions', {
          body: { network: 'stellar-sim', operations: [payment(xlmDest, 1_000 + k * PER_INSTANCE + j)] },
        }),
      ),
    ]),
  );
  for (const r of sends) assert.equal(r.status, 200, r.text);
  const unfinished = await Promise.all(
    ['sol', 'xlm'].flatMap((r) =>
      ['pending', 'sent', 'submitted', 'mined'].map((status) =>
        b.request('GET', `/api/v1/relayers/${r}/transactions?status=${status}&per_page=0`),
      ),
    ),
  );
  a.child.kill('SIGKILL');
  await a.exited;
  assert.ok(
    unfinished.some((r) => r.body.pagination.total_items > 0),
    'transactions were in flight at the kill',
  );

  const ids = (relayer: string) =>
    sends.filter((r) => r.body.data.relayer_id === relayer).map((r) => r.body.data.id as string);
  // Jobs leased by the killed instance move to the other once their leases lapse (10 s on PostgreSQL).
  const solFinal = await waitAllFinal(b, 'sol', ids('sol'), 180_000);
  const xlmFinal = await waitAllFinal(b, 'xlm', ids('xlm'), 180_000);
  assert.deepEqual(
    new Set(solFinal.map((f) => f.status)),
    new Set(['confirmed']),
    JSON.stringify(solFinal.map((f) => f.status_reason)),
  );
  assert.deepEqual(
    new Set(xlmFinal.map((f) => f.status)),
    new Set(['confirmed']),
    JSON.stringify(xlmFinal.map((f) => f.status_reason)),
  );
  const n = 2 * PER_INSTANCE;
  const sum = (base: bigint) => BigInt(n) * base + BigInt((n * (n - 1)) / 2);
  assert.equal(solana.balance(solDest), sum(1_000_000n), 'each Solana transfer landed once');
  assert.equal(stellar.account(xlmDest)!.balance, 10_000_000n + sum(1_000n), 'each Stellar payment landed once');
});
