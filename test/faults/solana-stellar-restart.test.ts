// Restart with Solana and Stellar transactions in flight: a real `node src/main.ts` is killed (SIGKILL) right after its
// sends are acknowledged, started again on the same data, and every transaction still reaches a final status. The
// networks are SIMULATED and keep running across the restart: Solana = a JSON-RPC stand-in over the real SVM (litesvm),
// Stellar = a Stellar RPC stand-in that checks the real XDR and signatures (test/support/*-rpc.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Keypair } from '@stellar/stellar-base';
import { API_KEY, request } from '../helper.ts';
import { startSolanaSim } from '../support/solana-rpc.ts';
import { startStellarSim } from '../support/stellar-rpc.ts';
import { solanaSetup, solanaKey, transfer } from '../transactions/solana-support.ts';
import { payment, stellarSetup } from '../transactions/stellar-support.ts';
import { waitAllFinal } from '../transactions/wait-final.ts';
import { startService } from './support.ts';

const PER_FAMILY = 20;

test('SIGKILL with Solana and Stellar transactions in flight: after a restart on the same data every one is final (simulated networks kept running)', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-solstel-restart-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const solana = await startSolanaSim({ slotMs: 20, finalizeDepth: 4 });
  const stellar = await startStellarSim({ ledgerMs: 100 });
  t.after(() => Promise.all([solana.close(), stellar.close()]));
  const sol = solanaSetup(solana, 'sol');
  const xlm = stellarSetup(stellar, 'xlm', { ledgerMs: 100 });
  const configPath = path.join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      networks: [...sol.config.networks!, ...xlm.config.networks!],
      signers: [...sol.config.signers!, ...xlm.config.signers!],
      relayers: [...sol.config.relayers!, ...xlm.config.relayers!],
      notifications: [],
      plugins: [],
    }),
  );
  const env = {
    API_KEY,
    DATA_DIR: path.join(dir, 'data'),
    CONFIG_PATH: configPath,
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    LOG_LEVEL: 'info',
  };

  const first = startService(env);
  t.after(() => first.killHard());
  const url = await first.listening;
  const solDest = solanaKey('restart destination').signer.address;
  const xlmDest = Keypair.random().publicKey();
  stellar.fund(xlmDest, 10_000_000n);
  const sends = await Promise.all([
    ...Array.from({ length: PER_FAMILY }, (_, i) =>
      request(url, 'POST', '/api/v1/relayers/sol/transactions', {
        body: { instructions: [transfer(sol.address, solDest, 1_000_000n + BigInt(i))] },
      }),
    ),
    ...Array.from({ length: PER_FAMILY }, (_, i) =>
      request(url, 'POST', '/api/v1/relayers/xlm/transactions', {
        body: { network: 'stellar-sim', operations: [payment(xlmDest, 1_000 + i)] },
      }),
    ),
  ]);
  for (const r of sends) assert.equal(r.status, 200, r.text);
  const unfinished = await Promise.all(
    ['sol', 'xlm'].flatMap((r) =>
      ['pending', 'sent', 'submitted', 'mined'].map((status) =>
        request(url, 'GET', `/api/v1/relayers/${r}/transactions?status=${status}&per_page=0`),
      ),
    ),
  );
  await first.killHard();
  assert.ok(
    unfinished.some((r) => r.body.pagination.total_items > 0),
    'transactions were in flight at the kill',
  );
  assert.equal(first.child.signalCode, 'SIGKILL');

  // Leases the first process held when it was killed (none when no job was running at that instant).
  const db = new Database(path.join(dir, 'data', 'relaybox.sqlite'));
  const held = db
    .prepare('SELECT COUNT(*) FROM jobs WHERE lease_owner IS NOT NULL AND lease_expires_at > ?')
    .pluck()
    .get(Date.now()) as number;
  db.close();

  const second = startService(env);
  t.after(() => second.killHard());
  const url2 = await second.listening;
  // The first process is gone: its job leases, if it held any, are given back at start rather than waited out.
  const released = /jobs held by a process that is gone were released/;
  if (held > 0) assert.match(second.output(), released);
  else assert.doesNotMatch(second.output(), released);
  t.diagnostic(`job leases held at the kill: ${held}`);
  const client = { request: (method: string, p: string) => request(url2, method, p) };
  const ids = sends.map((r) => r.body.data.id as string);
  const t0 = Date.now();
  const solFinal = await waitAllFinal(client, 'sol', ids.slice(0, PER_FAMILY), 120_000);
  t.diagnostic(`sol final after ${Date.now() - t0} ms`);
  const xlmFinal = await waitAllFinal(client, 'xlm', ids.slice(PER_FAMILY), 180_000);
  t.diagnostic(`xlm final after ${Date.now() - t0} ms`);
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
  const sum = (base: bigint) => BigInt(PER_FAMILY) * base + BigInt((PER_FAMILY * (PER_FAMILY - 1)) / 2);
  assert.equal(solana.balance(solDest), sum(1_000_000n), 'each Solana transfer landed once');
  assert.equal(stellar.account(xlmDest)!.balance, 10_000_000n + sum(1_000n), 'each Stellar payment landed once');
  assert.equal(await second.stop(), 0);
});
