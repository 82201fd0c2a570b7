// Issue 40 on Solana (simulated network, test/support/solana-rpc.ts over litesvm): a provider that answers every
// sendTransaction with the signature and forwards nothing (test/support/swallowing-front.ts), listed first.
// - Beside a healthy URL: submissions go to every URL at once, so each send lands (the code before sent only to the
//   first URL, re-signing after each blockhash expiry through it again, forever without valid_until).
// - Alone: nothing can deliver; the transaction ends `expired` after a bounded number of re-signs, and the URL is
//   shown unhealthy for broadcasts in the relayer's status and readiness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { resolveSigner } from '../../src/signers/local/resolve.ts';
import { MAX_RESIGNS } from '../../src/domain/transactions/solana/track.ts';
import { startSolanaSim } from '../support/solana-rpc.ts';
import { startSolanaSwallower } from '../support/swallowing-front.ts';
import { build } from '../helper.ts';
import { FAST_WEBHOOKS } from '../webhooks/support.ts';
import { solanaSetup, transfer } from './solana-support.ts';
import { waitAllFinal, waitFinal } from './wait-final.ts';

const destination = () =>
  resolveSigner({ id: 'd', type: 'local', private_key: randomBytes(32).toString('hex') }, 'solana', {}).address;

test('simulated Solana network: a provider that swallows submissions, listed first beside a healthy one: every send lands', async (t) => {
  const sim = await startSolanaSim({ slotMs: 20, finalizeDepth: 4, blockhashValidBlocks: 50 });
  t.after(() => sim.close());
  const front = await startSolanaSwallower(sim.url);
  t.after(() => front.close());
  const setup = solanaSetup(sim, 'sol');
  setup.config.networks![0]!.rpc_urls = [
    { url: front.url, weight: 100 },
    { url: sim.url, weight: 100 },
  ];
  const s = await build(t, { config: setup.config, env: FAST_WEBHOOKS });
  const dest = destination();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const sent = await s.request('POST', '/api/v1/relayers/sol/transactions', {
      body: { instructions: [transfer(setup.address, dest, 1_000_000n + BigInt(i))] },
    });
    assert.equal(sent.status, 200, sent.text);
    ids.push(sent.body.data.id);
  }
  const done = await waitAllFinal(s, 'sol', ids, 60_000);
  assert.deepEqual(
    done.map((d) => d.status),
    ids.map(() => 'confirmed'),
    JSON.stringify(done.map((d) => d.status_reason)),
  );
  assert.equal(sim.balance(dest), 5_000_000n + 10n, 'each transfer landed once');
  assert.ok(front.swallowed >= 5, `the first URL was asked and swallowed (${front.swallowed})`);
});

test('simulated Solana network: a provider that swallows submissions, alone: the transaction expires after bounded re-signs, the URL is marked in status and readiness', async (t) => {
  // Blockhashes live 40 slots of 20 ms: each version expires within a second, so the bound is reached within seconds,
  // while a re-sign (blockhash, fee, the signing gate's simulation) has time before its blockhash expires on a loaded
  // machine too.
  const sim = await startSolanaSim({ slotMs: 20, finalizeDepth: 4, blockhashValidBlocks: 40 });
  t.after(() => sim.close());
  const front = await startSolanaSwallower(sim.url);
  t.after(() => front.close());
  const setup = solanaSetup(sim, 'sol');
  setup.config.networks![0]!.rpc_urls = [{ url: front.url, weight: 100 }];
  const s = await build(t, { config: setup.config, env: FAST_WEBHOOKS });
  const dest = destination();
  const sent = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [transfer(setup.address, dest, 1_000_000n)] },
  });
  assert.equal(sent.status, 200, sent.text);
  const done = await waitFinal(s, 'sol', sent.body.data.id, 60_000);
  assert.equal(done.status, 'expired', done.status_reason);
  assert.match(done.status_reason, new RegExp(`re-signed ${MAX_RESIGNS} times\\): given up, no RPC URL got it landed`));
  assert.equal(done.signatures.length, MAX_RESIGNS + 1);
  assert.equal(sim.balance(dest), 0n, 'nothing landed');
  const status = (await s.request('GET', '/api/v1/relayers/sol/status')).body.data;
  assert.equal(status.rpc.available, true, 'it still answers reads');
  assert.match(
    status.rpc.broadcast_warnings?.[0] ?? '',
    /unhealthy for broadcasts: accepted transaction \w+ as new, but the network never had it past its blockhash's life/,
  );
  const ready = await s.request('GET', '/api/v1/ready');
  assert.equal(ready.body.components.rpc.status, 'degraded');
  assert.match(ready.body.reason, /unhealthy for broadcasts/);
});
