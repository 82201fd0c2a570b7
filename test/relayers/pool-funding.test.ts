// Issue 44, funding: a key pool's funding key (`funding_signer_id`) tops a lane that fell under the pool's
// `lane_min_balance` up to its `lane_target_balance`, by one tracked transaction of the relayer (sent from the funding
// key's own lane, marked `lane_top_up`, with its own events) that ends confirmed; the lane comes back to the routing;
// the metrics count the top-up. And the refusals of a bad funding declaration, in the config file and the API.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfigFile } from '../../src/config/config.ts';
import { build, type TestServer } from '../helper.ts';
import { startAnvil } from '../support/anvil.ts';
import { eventually } from '../support/eventually.ts';
import { waitFinal } from '../transactions/wait-final.ts';
import { FAST_WEBHOOKS, startReceiver } from '../webhooks/support.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const pgSkip = (await postgresReachable()) ? false : 'no PostgreSQL at 127.0.0.1:5432';

const ETH = 10n ** 18n;
const MIN = ETH / 10n;
const TARGET = ETH / 2n;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const POOL = 'funded';
const SEND = { to: TO, value: 1, gas_price: 2_000_000_000, gas_limit: 21_000 };

let made = 0;
async function keys(n: number, wei = ETH): Promise<Array<{ key: `0x${string}`; address: `0x${string}` }>> {
  const out = [];
  for (let k = 0; k < n; k++) {
    const key = `0x${(0x9002_0000 + ++made).toString(16).padStart(64, '0')}` as const;
    const address = privateKeyToAccount(key).address;
    await setBalance(address, wei);
    out.push({ key, address });
  }
  return out;
}
const setBalance = (address: string, wei: bigint) => anvil.rpc('anvil_setBalance', [address, `0x${wei.toString(16)}`]);
const balanceOf = async (address: string) => BigInt((await anvil.rpc('eth_getBalance', [address, 'latest'])) as string);

function startFunded(
  t: TestContext,
  pool: Array<{ key: string }>,
  funder: { key: string },
  hookUrl: string,
  env: Record<string, string> = {},
): Promise<TestServer> {
  return build(t, {
    env: { ...FAST_WEBHOOKS, ...env },
    config: {
      networks: [anvil.network('anvil')],
      signers: [
        ...pool.map((p, k) => ({ id: `key-${k}`, type: 'local', development: true, private_key: p.key })),
        { id: 'funder', type: 'local', development: true, private_key: funder.key },
      ],
      relayers: [
        {
          id: POOL,
          name: 'funded pool',
          network: 'anvil',
          signer_ids: pool.map((_, k) => `key-${k}`),
          funding_signer_id: 'funder',
          notification_id: 'hook',
          policies: { lane_min_balance: MIN.toString(), lane_target_balance: Number(TARGET) },
        },
      ],
      notifications: [{ id: 'hook', type: 'webhook', url: hookUrl }],
      plugins: [],
    } as never,
  });
}

const relayerOf = async (s: TestServer) => (await s.request('GET', `/api/v1/relayers/${POOL}`)).body.data;

test('a lane drained under lane_min_balance is topped up to lane_target_balance by a tracked transaction, and comes back to the routing', async (t) => {
  const pool = await keys(2);
  const [funder] = await keys(1, 10n * ETH);
  const drained = pool[1]!;
  // Drained before the start: the check at start finds it, nothing else needs to move.
  await setBalance(drained.address, 0n);
  const receiver = await startReceiver(t);
  const s = await startFunded(t, pool, funder!, receiver.url);

  const relayer = await relayerOf(s);
  assert.equal(relayer.funding_signer_id, 'funder');
  assert.equal(relayer.funding.address, funder!.address);
  assert.deepEqual(
    relayer.lanes.map((l: any) => l.address),
    pool.map((p) => p.address),
    'the funding key is no lane of the routing',
  );

  // The top-up: one transaction of the relayer, from the funding key to the lane, for what brings it to the target.
  const topUp = (await eventually(
    async () => {
      const list = (await s.request('GET', `/api/v1/relayers/${POOL}/transactions?per_page=50`)).body.data;
      return (list as Array<Record<string, any>>).find((r) => r.lane_top_up);
    },
    { timeoutMs: 30_000 },
  ))!;
  assert.deepEqual(topUp.lane_top_up, { lane: drained.address });
  assert.equal(topUp.from, funder!.address);
  assert.equal(topUp.to, drained.address);
  assert.equal(topUp.value, TARGET.toString());
  assert.equal(topUp.relayer_id, POOL);
  assert.equal(topUp.nonce, 0, "the funding key's own nonce sequence");
  const final = await waitFinal(s, POOL, topUp.id, 60_000);
  assert.equal(final.status, 'confirmed', JSON.stringify(final));
  assert.equal(await balanceOf(drained.address), TARGET);

  // Back in the routing: active again, and it takes sends.
  await eventually(
    async () => (await relayerOf(s)).lanes.find((l: any) => l.address === drained.address && l.state === 'active'),
    { timeoutMs: 30_000 },
  );
  const froms = new Set<string>();
  for (let k = 0; k < 4; k++) {
    const sent = await s.request('POST', `/api/v1/relayers/${POOL}/transactions`, { body: SEND });
    assert.equal(sent.status, 200, sent.text);
    froms.add(sent.body.data.from);
  }
  assert.ok(froms.has(drained.address), 'the topped-up lane took sends');
  assert.ok(!froms.has(funder!.address), 'the funding key takes no user send');

  // One top-up only (none while it was in flight), with its own events, and counted.
  const listed = (await s.request('GET', `/api/v1/relayers/${POOL}/transactions?per_page=50`)).body.data;
  assert.equal(listed.filter((r: any) => r.lane_top_up).length, 1);
  await eventually(
    () =>
      receiver.received.some(
        (r) =>
          r.body?.event === 'transaction_update' &&
          r.body.payload?.id === topUp.id &&
          r.body.payload.status === 'confirmed',
      ) || undefined,
    { timeoutMs: 30_000 },
  );
  const metrics = (await s.request('GET', '/metrics')).text;
  assert.match(
    metrics,
    new RegExp(`^relaybox_relayer_lane_top_ups_total\\{relayer_id="${POOL}",network="anvil"\\} 1$`, 'm'),
  );
});

const topUpsOf = async (s: TestServer) =>
  (
    (await s.request('GET', `/api/v1/relayers/${POOL}/transactions?per_page=50`)).body.data as Array<
      Record<string, any>
    >
  ).filter((r) => r.lane_top_up);

test('a lane that falls under lane_min_balance while in use gets one top-up, however many check runs see it low before it is mined', async (t) => {
  const pool = await keys(2);
  const [funder] = await keys(1, 10n * ETH);
  const low = pool[1]!;
  const receiver = await startReceiver(t);
  const s = await startFunded(t, pool, funder!, receiver.url);
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  // Under the pool's minimum, yet not empty: it stays in the routing meanwhile.
  await setBalance(low.address, MIN / 2n);
  const sent = await s.request('POST', `/api/v1/relayers/${POOL}/transactions`, { body: SEND });
  assert.equal(sent.status, 200, sent.text);
  const [topUp] = (await eventually(
    async () => {
      const found = await topUpsOf(s);
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs: 30_000 },
  ))!;
  assert.equal(topUp!.to, low.address);
  assert.equal(topUp!.value, (TARGET - MIN / 2n).toString(), 'up to the target from the balance the node showed');
  // Unmined, it is in flight through several check runs (each second): none of them sends another.
  await new Promise((r) => setTimeout(r, 5_000));
  assert.equal((await topUpsOf(s)).length, 1);
  await anvil.setAutomine(true);
  await anvil.mine();
  for (const id of [topUp!.id, sent.body.data.id]) {
    const final = await waitFinal(s, POOL, id, 60_000);
    assert.equal(final.status, 'confirmed', JSON.stringify(final));
  }
  assert.ok((await balanceOf(low.address)) >= MIN);
  const metrics = (await s.request('GET', '/metrics')).text;
  assert.match(
    metrics,
    new RegExp(`^relaybox_relayer_lane_top_ups_total\\{relayer_id="${POOL}",network="anvil"\\} 1$`, 'm'),
  );
});

test('a top-up in flight survives a restart, and its funding key cannot be changed in the config meanwhile', async (t) => {
  const pool = await keys(2);
  const [funder, other] = await keys(2, 10n * ETH);
  await setBalance(pool[1]!.address, 0n);
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const config = (funding: string) =>
    ({
      networks: [anvil.network('anvil')],
      signers: [
        ...pool.map((p, k) => ({ id: `key-${k}`, type: 'local', development: true, private_key: p.key })),
        { id: 'funder', type: 'local', development: true, private_key: funder!.key },
        { id: 'other', type: 'local', development: true, private_key: other!.key },
      ],
      relayers: [
        {
          id: POOL,
          name: 'funded pool',
          network: 'anvil',
          signer_ids: pool.map((_, k) => `key-${k}`),
          funding_signer_id: funding,
          policies: { lane_min_balance: MIN.toString(), lane_target_balance: TARGET.toString() },
        },
      ],
      notifications: [],
      plugins: [],
    }) as never;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-funding-restart-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await build(t, { config: config('funder'), dataDir });
  const [topUp] = (await eventually(
    async () => {
      const found = await topUpsOf(first);
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs: 30_000 },
  ))!;
  await first.close();
  await assert.rejects(
    build(t, { config: config('other'), dataDir }),
    /key 0x[0-9a-fA-F]{40} \(signer 'funder'\) has 1 transaction\(s\) in flight; keep it as funding_signer_id until they are final/,
  );
  const again = await build(t, { config: config('funder'), dataDir });
  await anvil.setAutomine(true);
  await anvil.mine();
  assert.equal((await waitFinal(again, POOL, topUp!.id, 60_000)).status, 'confirmed');
  assert.equal((await topUpsOf(again)).length, 1, 'not sent again after the restart');
  assert.equal(await balanceOf(pool[1]!.address), TARGET);
});

test('PostgreSQL: the funding key is a lane of its own there too; its top-up confirms', { skip: pgSkip }, async (t) => {
  const pool = await keys(2);
  const [funder] = await keys(1, 10n * ETH);
  await setBalance(pool[1]!.address, 0n);
  const receiver = await startReceiver(t);
  const env = { DATABASE_URL: (await createTestDatabase('relaybox_funding')).url };
  const s = await startFunded(t, pool, funder!, receiver.url, env);
  const [topUp] = (await eventually(
    async () => {
      const found = await topUpsOf(s);
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs: 30_000 },
  ))!;
  assert.equal(topUp!.from, funder!.address);
  assert.equal((await waitFinal(s, POOL, topUp!.id, 60_000)).status, 'confirmed');
  assert.equal(await balanceOf(pool[1]!.address), TARGET);
  assert.equal((await relayerOf(s)).funding.address, funder!.address);
  // Closed before its database is dropped (that hook was registered first).
  await s.close();
});

const KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
];
const signers = KEYS.map((k, i) => ({ id: `k${i}`, type: 'local', development: true, private_key: k }));
const network = {
  type: 'evm',
  network: 'chain',
  chain_id: 31337,
  required_confirmations: 1,
  symbol: 'ETH',
  average_blocktime_ms: 1000,
  rpc_urls: ['http://127.0.0.1:9'],
  features: ['eip1559'],
};
const LEVELS = { lane_min_balance: 1000, lane_target_balance: '5000' };

/** Each bad declaration and the refusal naming its field (the config's `relayers.0.` prefix left out). */
const REFUSALS: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    'no policies',
    { funding_signer_id: 'k3' },
    /'(relayers\.0\.)?policies\.lane_min_balance' is required with a funding signer/,
  ],
  [
    'no target',
    { funding_signer_id: 'k3', policies: { lane_min_balance: 1000 } },
    /'(relayers\.0\.)?policies\.lane_target_balance' is required with a funding signer/,
  ],
  [
    'target <= min',
    { funding_signer_id: 'k3', policies: { lane_min_balance: '5000', lane_target_balance: 5000 } },
    /'(relayers\.0\.)?policies\.lane_target_balance' \(5000\) must be above '(relayers\.0\.)?policies\.lane_min_balance' \(5000\)/,
  ],
  [
    'policies without a funding signer',
    { policies: LEVELS },
    /'(relayers\.0\.)?policies\.lane_min_balance' applies with a funding signer only/,
  ],
  [
    'the funding key is a pool key',
    { funding_signer_id: 'k1', policies: LEVELS },
    /'(relayers\.0\.)?funding_signer_id': signer 'k1' is a key of the pool \('(relayers\.0\.)?signer_ids\.1'\)/,
  ],
  ['a bad amount', { funding_signer_id: 'k3', policies: { ...LEVELS, lane_min_balance: -1 } }, /lane_min_balance/],
];

test('config: a bad funding declaration stops the start, naming the field', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-funding-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const load = (relayer: Record<string, unknown>, others: unknown[] = []) => {
    const file = path.join(dir, 'config.json');
    const entry = { id: 'r', name: 'r', network: 'chain', signer_ids: ['k0', 'k1'], ...relayer };
    writeFileSync(file, JSON.stringify({ networks: [network], signers, relayers: [entry, ...others] }));
    return loadConfigFile(file);
  };
  const ok = load({ funding_signer_id: 'k3', policies: LEVELS }).relayers[0]!;
  assert.equal(ok.funding_signer_id, 'k3');
  for (const [what, relayer, message] of REFUSALS) assert.throws(() => load(relayer), message, what);
  assert.throws(
    () => load({ funding_signer_id: 'nope', policies: LEVELS }),
    /relayers\.0\.funding_signer_id: unknown signer 'nope'/,
  );
  assert.throws(
    () => load({ signer_ids: undefined, signer_id: 'k0', funding_signer_id: 'k3', policies: LEVELS }),
    /'relayers\.0\.funding_signer_id' applies to key pools only/,
  );
  assert.throws(
    () =>
      load({ funding_signer_id: 'k3', policies: LEVELS }, [
        { id: 'other', name: 'o', network: 'chain', signer_id: 'k3' },
      ]),
    /relayers\.0\.funding_signer_id: signer 'k3' is already used by relayer 'other'/,
  );
});

test('API: POST and PATCH take funding_signer_id; a bad declaration answers 400 naming the field, an unknown signer 404', async (t) => {
  const s = await build(t, {
    config: { networks: [network], signers, relayers: [], notifications: [], plugins: [] } as never,
  });
  const body = (extra: Record<string, unknown>) => ({
    name: 'p',
    network: 'chain',
    network_type: 'evm',
    paused: false,
    signer_ids: ['k0', 'k1'],
    ...extra,
  });
  for (const [what, extra, message] of REFUSALS) {
    const r = await s.request('POST', '/api/v1/relayers', { body: body(extra) });
    assert.equal(r.status, 400, `${what}: ${r.text}`);
    assert.match(r.body.error, message, what);
  }
  const unknown = await s.request('POST', '/api/v1/relayers', {
    body: body({ funding_signer_id: 'nope', policies: LEVELS }),
  });
  assert.equal(unknown.status, 404, unknown.text);
  assert.match(unknown.body.error, /signer 'nope'/);

  const created = await s.request('POST', '/api/v1/relayers', {
    body: body({ id: 'p', funding_signer_id: 'k3', policies: LEVELS }),
  });
  assert.equal(created.status, 201, created.text);
  const got = (await s.request('GET', '/api/v1/relayers/p')).body.data;
  assert.equal(got.funding_signer_id, 'k3');
  assert.equal(got.lanes.length, 2);
  // Another relayer cannot take the funding key.
  const taken = await s.request('POST', '/api/v1/relayers', {
    body: { ...body({}), signer_ids: undefined, signer_id: 'k3' },
  });
  assert.equal(taken.status, 400, taken.text);
  assert.match(taken.body.error, /signer 'k3' is already in use by relayer 'p'/);

  // PATCH: a policy change is checked against the funding key; the funding key can be changed and dropped.
  const lowTarget = await s.request('PATCH', '/api/v1/relayers/p', {
    body: { policies: { lane_min_balance: 9000, lane_target_balance: 5000 } },
  });
  assert.equal(lowTarget.status, 400, lowTarget.text);
  assert.match(lowTarget.body.error, /'policies\.lane_target_balance' \(5000\) must be above/);
  const toPoolKey = await s.request('PATCH', '/api/v1/relayers/p', { body: { funding_signer_id: 'k0' } });
  assert.equal(toPoolKey.status, 400, toPoolKey.text);
  assert.match(toPoolKey.body.error, /'funding_signer_id': signer 'k0' is a key of the pool \('signer_ids\.0'\)/);
  const changed = await s.request('PATCH', '/api/v1/relayers/p', { body: { funding_signer_id: 'k2' } });
  assert.equal(changed.status, 200, changed.text);
  assert.equal((await s.request('GET', '/api/v1/relayers/p')).body.data.funding_signer_id, 'k2');
  const dropped = await s.request('PATCH', '/api/v1/relayers/p', { body: { funding_signer_id: null, policies: null } });
  assert.equal(dropped.status, 200, dropped.text);
  const after = (await s.request('GET', '/api/v1/relayers/p')).body.data;
  assert.equal('funding_signer_id' in after, false);
  assert.equal(after.lanes.length, 2);
});
