// A signer that fails or hangs at send time, on a real anvil: the send it could not sign answers SIGNER_UNAVAILABLE
// (502) naming the signer and the cause, the other sends of the same moment go through, the relayer keeps sending,
// and the nonces written are contiguous: every confirmed transaction is mined, none waits behind a gap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestServer } from '../helper.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil, type TestAnvil } from '../support/anvil.ts';
import { faultySigners, type SignerFaults } from '../support/signer-faults.ts';
import { waitFor } from './lifecycle/support.ts';

const RELAYER = 'relay';
const body = {
  value: 1,
  to: ANVIL_ADDRESSES[2],
  max_fee_per_gas: 20_000_000_000,
  max_priority_fee_per_gas: 1_000_000_000,
};

async function setup(
  t: import('node:test').TestContext,
): Promise<{ s: TestServer; anvil: TestAnvil; faults: SignerFaults }> {
  const anvil = await startAnvil();
  t.after(() => anvil.stop());
  const { resolveSigner, faults } = faultySigners();
  const s = await build(t, {
    env: { SIGNER_TIMEOUT_MS: '500' },
    resolveSigner,
    config: {
      networks: [anvil.network('anvil')],
      signers: [{ id: 'kms', type: 'local', development: true, private_key: ANVIL_KEYS[0] }],
      relayers: [{ id: RELAYER, name: 'remote-signed', network: 'anvil', signer_id: 'kms' }],
      notifications: [],
      plugins: [],
    },
  });
  return { s, anvil, faults };
}

const send = (s: TestServer) => s.request('POST', `/api/v1/relayers/${RELAYER}/transactions`, { body });

/** Sends `n` at once; the answers, the created ones' nonces sorted. */
async function burst(s: TestServer, n: number) {
  const answers = await Promise.all(Array.from({ length: n }, () => send(s)));
  const created = answers.filter((a) => a.status === 200).map((a) => a.body.data);
  return {
    failed: answers.filter((a) => a.status !== 200),
    created,
    nonces: created.map((d) => d.nonce as number).sort((a, b) => a - b),
  };
}

/** Every created transaction mined, and the chain's nonce right after the highest: no nonce left unused below it. */
async function allMined(s: TestServer, anvil: TestAnvil, ids: string[], expectedCount: number) {
  for (const id of ids)
    await waitFor(
      async () => (await s.request('GET', `/api/v1/relayers/${RELAYER}/transactions/${id}`)).body.data.status,
      (st) => st === 'mined' || st === 'confirmed',
      30_000,
      `${id} mined`,
    );
  assert.equal(
    Number(await anvil.rpc('eth_getTransactionCount', [ANVIL_ADDRESSES[0], 'latest'])),
    expectedCount,
    'every nonce written is used on chain: no gap',
  );
}

const contiguous = (nonces: number[], from: number) => nonces.every((n, i) => n === from + i);

test('one failing signature among concurrent sends: that send answers 502 naming the signer, the others are mined, no nonce gap', async (t) => {
  const { s, anvil, faults } = await setup(t);
  faults.delayMs = 20;
  faults.failAfter(2);
  const { failed, created, nonces } = await burst(s, 8);
  assert.equal(failed.length, 1, JSON.stringify(failed.map((f) => f.body)));
  assert.equal(failed[0]!.status, 502);
  assert.match(failed[0]!.body.error, /signer 'kms': simulated KMS: the request was throttled/);
  assert.ok(contiguous(nonces, 0), `nonces ${nonces.join(',')} are 0..6`);
  await allMined(
    s,
    anvil,
    created.map((d) => d.id),
    7,
  );
  const traced = s
    .rawLogs()
    .split('\n')
    .filter((l) => l.includes('    at '));
  assert.deepEqual(
    traced.map((l) => l.slice(0, 600)),
    [],
    'no stack trace in the logs',
  );
});

test('a signature that hangs is cut at SIGNER_TIMEOUT_MS: that send fails alone, the relayer keeps sending without a gap', async (t) => {
  const { s, anvil, faults } = await setup(t);
  faults.hangAfter(1);
  const first = await burst(s, 4);
  assert.equal(first.failed.length, 1);
  assert.equal(first.failed[0]!.status, 502);
  assert.match(first.failed[0]!.body.error, /signer 'kms': no signature within 500 ms \(timed out\)/);
  // Not jammed: the next sends take the next nonces.
  const second = await burst(s, 3);
  assert.equal(second.failed.length, 0);
  assert.ok(
    contiguous([...first.nonces, ...second.nonces], 0),
    `nonces ${[...first.nonces, ...second.nonces].join(',')} are 0..5`,
  );
  await allMined(
    s,
    anvil,
    [...first.created, ...second.created].map((d) => d.id),
    6,
  );
});
