// Issue 44: a pool's keys changed through the API (PATCH /api/v1/relayers/{id} `signer_ids`), on a real anvil: a
// relayer with one signer becomes a pool, a key is added and takes sends, a key with transactions in flight cannot be
// dropped (the refusal names it) and can once they are final, the first key cannot change, and back to one signer
// the relayer has the reference's shape again. Each refusal names the key and the field.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { build, type TestServer } from '../helper.ts';
import { startAnvil } from '../support/anvil.ts';
import { waitAllFinal } from '../transactions/wait-final.ts';
import { eventually } from '../support/eventually.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const pgSkip = (await postgresReachable()) ? false : 'no PostgreSQL at 127.0.0.1:5432';

const ETH = 10n ** 18n;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ID = 'patched';
const SEND = { to: TO, value: 1, gas_price: 2_000_000_000, gas_limit: 21_000 };

const keys = await Promise.all(
  Array.from({ length: 4 }, async (_, k) => {
    const key = `0x${(0x9003_0000 + k + 1).toString(16).padStart(64, '0')}` as const;
    const address = privateKeyToAccount(key).address;
    await anvil.rpc('anvil_setBalance', [address, `0x${ETH.toString(16)}`]);
    return { key, address };
  }),
);

const patch = (s: TestServer, body: Record<string, unknown>) => s.request('PATCH', `/api/v1/relayers/${ID}`, { body });
const relayerOf = async (s: TestServer) => (await s.request('GET', `/api/v1/relayers/${ID}`)).body.data;
const sendMany = async (s: TestServer, n: number) => {
  const out = [];
  for (let k = 0; k < n; k++) {
    const r = await s.request('POST', `/api/v1/relayers/${ID}/transactions`, { body: SEND });
    assert.equal(r.status, 200, r.text);
    out.push(r.body.data as { id: string; from: string });
  }
  return out;
};

test('PATCH signer_ids adds and drops keys under the rules of a config start, each refusal naming the key', async (t) => {
  const s = await build(t, {
    config: {
      networks: [anvil.network('anvil')],
      signers: keys.map((p, k) => ({ id: `k${k}`, type: 'local', development: true, private_key: p.key })),
      relayers: [{ id: 'other', name: 'other', network: 'anvil', signer_id: 'k3' }],
      notifications: [],
      plugins: [],
    } as never,
  });
  const created = await s.request('POST', '/api/v1/relayers', {
    body: { id: ID, name: 'p', network: 'anvil', network_type: 'evm', paused: false, signer_id: 'k0' },
  });
  assert.equal(created.status, 201, created.text);

  // One signer becomes a pool of two, then three: each key takes sends.
  assert.equal((await patch(s, { signer_ids: ['k0', 'k1'] })).status, 200);
  assert.deepEqual(
    (await relayerOf(s)).lanes.map((l: any) => l.signer_id),
    ['k0', 'k1'],
  );
  const added = await patch(s, { signer_ids: ['k0', 'k1', 'k2'], max_pending_per_key: 4 });
  assert.equal(added.status, 200, added.text);
  const lanes = (await relayerOf(s)).lanes;
  assert.deepEqual(
    lanes.map((l: any) => [l.address, l.max_pending]),
    keys.slice(0, 3).map((k) => [k.address, 4]),
  );

  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const sent = await sendMany(s, 6);
  assert.deepEqual(
    new Set(sent.map((r) => r.from)),
    new Set(keys.slice(0, 3).map((k) => k.address)),
    'every key took sends',
  );

  // The refusals, each naming the field and the key.
  const refused = async (body: Record<string, unknown>, status: number, message: RegExp) => {
    const r = await patch(s, body);
    assert.equal(r.status, status, r.text);
    assert.match(r.body.error, message);
  };
  await refused(
    { signer_ids: ['k0', 'k2'] },
    400,
    new RegExp(
      `^'signer_ids': key ${keys[1]!.address} \\(signer 'k1'\\) has 2 transaction\\(s\\) in flight; it cannot be dropped until they are final`,
    ),
  );
  await refused(
    { signer_ids: ['k1', 'k0', 'k2'] },
    400,
    /^'signer_ids\.0': the first key cannot change: it must stay 'k0'/,
  );
  await refused({ signer_ids: ['k0', 'k1', 'k1'] }, 400, /^'signer_ids\.2': signer 'k1' is named twice/);
  await refused({ signer_ids: ['k0', 'k3'] }, 400, /signer 'k3' is already in use by relayer 'other'/);
  await refused({ signer_ids: ['k0', 'nope'] }, 404, /signer 'nope' not found/);
  assert.equal((await relayerOf(s)).lanes.length, 3, 'a refused change changes nothing');

  // Final, the key can be dropped; its transactions stay the relayer's.
  await anvil.setAutomine(true);
  await anvil.mine();
  const final = await waitAllFinal(
    s,
    ID,
    sent.map((r) => r.id),
  );
  for (const r of final) assert.equal(r.status, 'confirmed', JSON.stringify(r));
  const dropped = await patch(s, { signer_ids: ['k0', 'k2'] });
  assert.equal(dropped.status, 200, dropped.text);
  assert.deepEqual(
    (await relayerOf(s)).lanes.map((l: any) => l.signer_id),
    ['k0', 'k2'],
  );
  const later = await sendMany(s, 4);
  assert.ok(later.every((r) => r.from !== keys[1]!.address));
  const onDropped = sent.find((r) => r.from === keys[1]!.address)!;
  assert.equal((await s.request('GET', `/api/v1/relayers/${ID}/transactions/${onDropped.id}`)).status, 200);
  await waitAllFinal(
    s,
    ID,
    later.map((r) => r.id),
  );

  // Back to one signer: the reference's shape, and the relayer's own nonces go on.
  assert.equal((await patch(s, { signer_ids: ['k0'] })).status, 200);
  const one = await relayerOf(s);
  assert.equal('lanes' in one, false);
  const [last] = await sendMany(s, 1);
  assert.equal(last!.from, keys[0]!.address);
});

test('PostgreSQL: keys added through one instance are used by another, which picks their signers up by itself', {
  skip: pgSkip,
}, async (t) => {
  const env = { DATABASE_URL: (await createTestDatabase('relaybox_repool')).url };
  const start = () =>
    build(t, {
      env,
      config: {
        networks: [anvil.network('anvil')],
        signers: keys.map((p, k) => ({ id: `k${k}`, type: 'local', development: true, private_key: p.key })),
        // A config relayer: both instances know it (one made through the API is known to its maker until a restart).
        relayers: [{ id: 'shared', name: 's', network: 'anvil', signer_id: 'k0' }],
        notifications: [],
        plugins: [],
      } as never,
    });
  const a = await start();
  const b = await start();
  // b knows it as a relayer with one signer first.
  const before = await b.request('POST', '/api/v1/relayers/shared/transactions', { body: SEND });
  assert.equal(before.status, 200, before.text);
  const added = await a.request('PATCH', '/api/v1/relayers/shared', { body: { signer_ids: ['k0', 'k1'] } });
  assert.equal(added.status, 200, added.text);
  const onNewKey = await eventually(
    async () => {
      const r = await b.request('POST', '/api/v1/relayers/shared/transactions', { body: SEND });
      assert.equal(r.status, 200, r.text);
      return r.body.data.from === keys[1]!.address ? r.body.data : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  assert.ok(onNewKey);
  assert.deepEqual(
    (await b.request('GET', '/api/v1/relayers/shared')).body.data.lanes.map((l: any) => l.signer_id),
    ['k0', 'k1'],
  );
  // Closed before their database is dropped (that hook was registered first).
  await a.close();
  await b.close();
});
