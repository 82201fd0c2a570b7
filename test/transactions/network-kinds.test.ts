// Network kinds, from the reference's tags. A sequencer without a pool (`no-mempool`; `arbitrum-based` and
// `optimism-based` are kinds of it) is imitated by test/support/sequencer-proxy.ts in front of a real anvil: it
// refuses nonce gaps, keeps no pending pool and mines on receipt. The OP-stack L1 data fee is read from anvil in its
// OP-stack mode (`--network optimism`), where the GasPriceOracle predeploy has no code: a stand-in is placed there
// (see opOracleStandIn), so the fee the relayer reads is the stand-in's, computed by its documented formula.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { numberToHex, pad, parseTransaction, serializeTransaction, type Hex } from 'viem';
import { build, type TestServer } from '../helper.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil, waitInPool, type TestAnvil } from '../support/anvil.ts';
import { startSequencerProxy } from '../support/sequencer-proxy.ts';
import type { NetworkConfig } from '../../src/config/config.ts';
import { isArbitrum, isOptimism, lacksMempool } from '../../src/domain/transactions/evm/network-kind.ts';
import { resubmitTimeoutMs } from '../../src/domain/transactions/evm/timing.ts';
import { waitFor } from './lifecycle/support.ts';

const GWEI = 1_000_000_000n;
const TO = ANVIL_ADDRESSES[2]!;
const path = (id = '') => `/api/v1/relayers/relay/transactions/${id}`;

const anvil = await startAnvil();
after(() => anvil.stop());
const sequencer = await startSequencerProxy(anvil);
after(() => sequencer.close());

function start(
  t: Parameters<typeof build>[0],
  chain: TestAnvil,
  network: Partial<NetworkConfig>,
  key: Hex = ANVIL_KEYS[0],
  policies?: Record<string, unknown>,
): Promise<TestServer> {
  return build(t, {
    config: {
      // Fee suggestions read afresh (1 ms cache): other readers (the balance watch) must not price a re-pricing with fees
      // read before a test raised the base fee.
      networks: [
        chain.network('l2', {
          resubmit_timeout_ms: 3_600_000,
          gas_price_cache: { enabled: true, stale_after_ms: 1 },
          ...network,
        }),
      ],
      signers: [{ id: 'key', type: 'local', development: true, private_key: key }],
      relayers: [{ id: 'relay', name: 'l2', network: 'l2', signer_id: 'key', ...(policies ? { policies } : {}) }],
      notifications: [],
      plugins: [],
    },
  });
}
const onSequencer = (tags: string[]): Partial<NetworkConfig> => ({
  tags,
  rpc_urls: [{ url: sequencer.url, weight: 100 }],
});
const get = async (s: TestServer, id: string) => (await s.request('GET', path(id))).body.data as Record<string, any>;
const waitConfirmed = (s: TestServer, id: string) =>
  waitFor(
    () => get(s, id),
    (r) => ['confirmed', 'failed', 'expired', 'canceled'].includes(r.status),
    30_000,
    `${id} final`,
  );
const latestNonce = async (address: Hex) =>
  Number(await anvil.rpc<Hex>('eth_getTransactionCount', [address, 'latest']));

test('tags: the reference strings and what each kind implies', () => {
  assert.equal(lacksMempool({ tags: ['no-mempool'] }), true);
  // As in the reference (LACKS_MEMPOOL_TAGS): Arbitrum and OP-stack chains have no public pool either.
  assert.equal(lacksMempool({ tags: ['arbitrum-based'] }), true);
  assert.equal(lacksMempool({ tags: ['optimism-based'] }), true);
  assert.equal(lacksMempool({ tags: ['optimism'] }), true);
  assert.equal(lacksMempool({ tags: ['rollup'] }), false);
  assert.equal(lacksMempool({}), false);
  assert.equal(isOptimism({ tags: ['rollup', 'optimism'] }), true);
  assert.equal(isArbitrum({ tags: ['rollup', 'optimism-based'] }), false);
});

test('re-pricing waits grow per attempt (doubling, as the reference), but on Arbitrum (20 s each time)', () => {
  const l1 = { average_blocktime_ms: 12_000 } as NetworkConfig;
  assert.deepEqual(
    [1, 2, 3, 4].map((n) => resubmitTimeoutMs(l1, 'fast', n)),
    [120_000, 240_000, 480_000, 960_000],
  );
  assert.equal(resubmitTimeoutMs(l1, 'fast', 40), 3_600_000, 'at most hourly');
  assert.equal(resubmitTimeoutMs({ ...l1, resubmit_timeout_ms: 500 }, null, 3), 2_000);
  const arbitrum = { ...l1, tags: ['rollup', 'arbitrum-based'] } as NetworkConfig;
  assert.deepEqual(
    [1, 5].map((n) => resubmitTimeoutMs(arbitrum, 'fast', n)),
    [20_000, 20_000],
  );
});

test('no-mempool: with a nonce gap below, concurrent sends the sequencer refuses as "nonce too high" all end confirmed, nonces contiguous', async (t) => {
  const s = await start(t, anvil, onSequencer(['no-mempool']));
  const address = ANVIL_ADDRESSES[0]!;
  const chainNonce = await latestNonce(address);
  // As if three sends had been recorded and never reached the sequencer: every send above is refused until they are filled.
  s.app.db.prepare('UPDATE relayers SET next_nonce = ? WHERE id = ?').run(chainNonce + 3, 'relay');
  const offeredBefore = sequencer.offered.length;
  const sent = await Promise.all(
    Array.from({ length: 6 }, () => s.request('POST', path(), { body: { to: TO, value: 1, speed: 'fast' } })),
  );
  for (const res of sent) assert.equal(res.status, 200, res.text);
  const done = await Promise.all(sent.map((res) => waitConfirmed(s, res.body.data.id)));
  assert.deepEqual(
    done.map((r) => r.status),
    Array(6).fill('confirmed'),
  );
  assert.deepEqual(
    done.map((r) => r.nonce).sort((a, b) => a - b),
    [3, 4, 5, 6, 7, 8].map((i) => chainNonce + i),
  );
  assert.equal(await latestNonce(address), chainNonce + 9, 'the gap filled by three NOOPs, each send mined once');
  const refused = sequencer.offered.slice(offeredBefore).filter((o) => o.refused !== null);
  assert.ok(
    refused.some((o) => /^nonce too high/.test(o.refused!)),
    'the sequencer refused a nonce above the gap',
  );
});

test('no-mempool: a version the sequencer refuses below its base fee is re-priced at the market price, not bumped', async (t) => {
  const s = await start(t, anvil, onSequencer(['no-mempool']), ANVIL_KEYS[1]);
  await anvil.setNextBaseFee(20n * GWEI);
  // A tip far above the network's: a bump would raise it by 10%; the market price lowers it.
  const tip = 5n * GWEI;
  const res = await s.request('POST', path(), {
    body: { to: TO, value: 1, max_fee_per_gas: String(tip), max_priority_fee_per_gas: String(tip) },
  });
  assert.equal(res.status, 200, res.text);
  const done = await waitConfirmed(s, res.body.data.id);
  assert.equal(done.status, 'confirmed');
  assert.ok(done.hashes.length >= 2, 're-priced');
  assert.equal(done.hash, done.hashes.at(-1));
  assert.ok(
    BigInt(done.max_priority_fee_per_gas) < tip,
    `tip ${done.max_priority_fee_per_gas}: the market's, below the first version's ${tip}`,
  );
  assert.ok(BigInt(done.max_fee_per_gas) >= 20n * GWEI, 'priced for the base fee that refused it');
  assert.ok(sequencer.offered.some((o) => o.hash === done.hashes[0] && /base fee/.test(o.refused ?? '')));
});

test('no-mempool: a nonce used behind the relayer\'s back is answered "nonce too low", and the send is re-signed with the next one', async (t) => {
  const s = await start(t, anvil, onSequencer(['arbitrum-based', 'rollup']));
  const address = ANVIL_ADDRESSES[0]!;
  const before = await latestNonce(address);
  await sequencer.useNonce(ANVIL_KEYS[0], { maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI });
  const res = await s.request('POST', path(), { body: { to: TO, value: 3, speed: 'fast' } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.nonce, before, 'signed with the nonce the relayer believed next');
  const done = await waitConfirmed(s, res.body.data.id);
  assert.equal(done.status, 'confirmed');
  assert.equal(done.nonce, before + 1);
  assert.match(done.status_reason, /re-signed with nonce/);
  assert.equal(await latestNonce(address), before + 2);
});

test('no-mempool: a replace need not beat the old prices (no pool holds the old version to outbid)', async (t) => {
  // Straight to anvil with automine off, so the transaction is still there to replace; the relayer trusts the tag.
  const s = await start(t, anvil, { tags: ['no-mempool'] }, ANVIL_KEYS[1]);
  const prices = { max_fee_per_gas: String(100n * GWEI), max_priority_fee_per_gas: String(2n * GWEI) };
  const res = await s.request('POST', path(), { body: { to: TO, value: 1, ...prices } });
  assert.equal(res.status, 200, res.text);
  const replaced = await s.request('PUT', path(res.body.data.id), { body: { to: TO, value: 2, ...prices } });
  assert.equal(replaced.status, 200, replaced.text);
  assert.equal(replaced.body.data.max_fee_per_gas, prices.max_fee_per_gas);
  await anvil.mine(1);
  await waitConfirmed(s, res.body.data.id);
});

test("arbitrum-based: NOOPs take the node's gas estimate, which carries the L1 cost a 21,000-gas NOOP would not cover", async (t) => {
  // A second sequencer stand-in that accounts gas as Arbitrum does: 30,000 gas of L1 cost in every estimate and limit.
  const arbitrum = await startSequencerProxy(anvil, { l1Gas: 30_000n });
  t.after(() => arbitrum.close());
  const s = await start(t, anvil, {
    tags: ['rollup', 'arbitrum-based'],
    rpc_urls: [{ url: arbitrum.url, weight: 100 }],
  });
  const address = ANVIL_ADDRESSES[0]!;
  const chainNonce = await latestNonce(address);
  // A nonce below the send that only a NOOP can fill: the send is confirmed only once that NOOP is accepted.
  s.app.db.prepare('UPDATE relayers SET next_nonce = ? WHERE id = ?').run(chainNonce + 1, 'relay');
  const res = await s.request('POST', path(), { body: { to: TO, value: 1, speed: 'fast' } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.gas_limit, 51_000, "the send's gas is the node's estimate, L1 cost included");
  assert.equal((await waitConfirmed(s, res.body.data.id)).status, 'confirmed');
  const noop = arbitrum.offered.find((o) => o.refused === null && parseTransaction(o.raw).nonce === chainNonce);
  assert.ok(noop, 'the gap NOOP was accepted');
  assert.equal(parseTransaction(noop.raw).gas, 51_000n);
});

test('rollup: a transaction re-signed more than 50 times gives its nonce up to a NOOP, as the reference does', async (t) => {
  // Straight to anvil (automine is off for the sequencer): the transaction waits in the pool.
  const s = await start(t, anvil, { tags: ['rollup'] }, ANVIL_KEYS[1]);
  const res = await s.request('POST', path(), { body: { to: TO, value: 1, speed: 'fast' } });
  assert.equal(res.status, 200, res.text);
  const id = res.body.data.id;
  await waitFor(
    () => get(s, id),
    (r) => r.status === 'submitted',
    30_000,
    'submitted',
  );
  // As if it had been re-priced 50 times (the store holds the record as JSON).
  const earlier = Array.from({ length: 50 }, (_, i) => numberToHex(i + 1, { size: 32 }));
  s.app.db
    .prepare("UPDATE transactions SET record = json_set(record, '$.hashes', json(?)) WHERE id = ?")
    .run(JSON.stringify([...earlier, res.body.data.hash]), id);
  const noop = await waitFor(
    () => get(s, id),
    (r) => r.noop_hashes.length === 1,
    30_000,
    'the NOOP',
  );
  assert.equal(noop.status_reason, 'Rollup transaction has too many attempts. Replacing with NOOP.');
  await waitInPool(anvil, noop.noop_hashes[0]);
  await anvil.mine(1);
  const done = await waitConfirmed(s, id);
  assert.equal(done.status, 'expired');
  assert.equal(done.status_reason, 'too many attempts on a rollup: a NOOP took its nonce');
});

/**
 * A GasPriceOracle stand-in for `getL1Fee(bytes)`: (length of the bytes + 68) × the wei per byte held in storage slot
 * 0 (68: what a signature adds, as the real oracle counts it). Runtime code: PUSH1 0x24 CALLDATALOAD (the bytes'
 * length) PUSH1 0x44 ADD PUSH1 0 SLOAD MUL PUSH1 0 MSTORE PUSH1 0x20 PUSH1 0 RETURN.
 */
const ORACLE = '0x420000000000000000000000000000000000000F';
const ORACLE_CODE: Hex = '0x6024356044016000540260005260206000f3';

test("optimism-based: the L1 data fee from the chain's gas price oracle counts in the balance check and is kept in the record", async (t) => {
  const op = await startAnvil({ args: ['--network', 'optimism'] });
  t.after(() => op.stop());
  const perByte = 10n ** 12n;
  await op.setCode(ORACLE, ORACLE_CODE);
  await op.rpc('anvil_setStorageAt', [ORACLE, numberToHex(0, { size: 32 }), pad(numberToHex(perByte), { size: 32 })]);
  const key = ANVIL_KEYS[1];
  const s = await start(t, op, { tags: ['rollup', 'optimism-based'], features: ['eip1559'] }, key);
  const body = {
    to: TO,
    value: 1,
    gas_limit: 21_000,
    max_fee_per_gas: String(2n * GWEI),
    max_priority_fee_per_gas: String(GWEI),
  };
  const l2Cost = 1n + 21_000n * 2n * GWEI;
  // Enough for value + gas × fee, not for the L1 data fee on top.
  await op.rpc('anvil_setBalance', [ANVIL_ADDRESSES[1], numberToHex(l2Cost + 1000n)]);
  const refused = await s.request('POST', path(), { body });
  assert.equal(refused.status, 400, refused.text);
  assert.match(JSON.stringify(refused.body), /L1 data fee/, JSON.stringify(refused.body));

  await op.rpc('anvil_setBalance', [ANVIL_ADDRESSES[1], numberToHex(10n ** 18n)]);
  const res = await s.request('POST', path(), { body });
  assert.equal(res.status, 200, res.text);
  const r = res.body.data;
  const tx = parseTransaction(r.raw as Hex);
  const unsigned = serializeTransaction({
    ...tx,
    r: undefined,
    s: undefined,
    v: undefined,
    yParity: undefined,
  } as never);
  assert.equal(r.l1_fee, String(BigInt((unsigned.length - 2) / 2 + 68) * perByte));
  assert.equal(
    (
      await waitFor(
        () => get(s, r.id),
        (x) => x.status === 'confirmed',
        30_000,
        'confirmed',
      )
    ).l1_fee,
    r.l1_fee,
  );

  // min_balance counts it too: a policy that value + gas × fee alone would leave intact.
  const balance = 5n * 10n ** 14n;
  await op.rpc('anvil_setBalance', [ANVIL_ADDRESSES[1], numberToHex(balance)]);
  const guarded = await start(t, op, { tags: ['optimism-based'], features: ['eip1559'] }, key, {
    min_balance: Number(balance - l2Cost - 1000n),
  });
  const below = await guarded.request('POST', path(), { body });
  assert.equal(below.status, 400, below.text);
  assert.match(JSON.stringify(below.body), /with an enforced minimum balance of \d+: \d+ wei missing/);

  // Tagged optimism-based, but nothing answers at the oracle's address: said, not guessed.
  await op.setCode(ORACLE, '0x');
  const blind = await s.request('POST', path(), { body });
  assert.equal(blind.status, 503, blind.text);
  assert.match(JSON.stringify(blind.body), /GasPriceOracle/, JSON.stringify(blind.body));
});
