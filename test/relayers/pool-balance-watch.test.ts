// Issue 44, on a real anvil through the API: a key pool whose FIRST key is drained under min_balance stays enabled
// (the balance check disables a relayer under min_balance, but a pool has other keys): the drained key leaves the
// routing, the others take the sends. Only when no key of the pool holds min_balance is the relayer system-disabled,
// and one key funded again enables it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { build, type TestServer } from '../helper.ts';
import { startAnvil } from '../support/anvil.ts';
import { eventually } from '../support/eventually.ts';
import { waitAllFinal } from '../transactions/wait-final.ts';

const anvil = await startAnvil();
after(() => anvil.stop());

const ETH = 10n ** 18n;
const POOL = 'pool';
const base = `/api/v1/relayers/${POOL}`;
const SEND = {
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  value: 1,
  gas_price: 2_000_000_000,
  gas_limit: 21_000,
};
const KEYS = [1, 2, 3].map((k) => {
  const key = `0x${(0x9002_0000 + k).toString(16).padStart(64, '0')}` as const;
  return { key, address: privateKeyToAccount(key).address };
});
const setBalance = (address: string, wei: bigint) => anvil.rpc('anvil_setBalance', [address, `0x${wei.toString(16)}`]);
const status = async (s: TestServer) => (await s.request('GET', `${base}/status`)).body.data;
const lanesOf = async (s: TestServer) =>
  (await s.request('GET', base)).body.data.lanes as Array<{ address: string; state: string }>;

/** Moves the pool's next balance check to now (it runs every minute) and waits for its outcome. */
async function checkNow(s: TestServer): Promise<Record<string, any>> {
  const before = (await status(s)).balance_watch?.checked_at;
  await s.app.store.repos.jobs.schedule({ kind: 'relayer.balance', subject: POOL, dueAt: Date.now() });
  const st = await eventually(
    async () => {
      const now = await status(s);
      return now.balance_watch && now.balance_watch.checked_at !== before ? now : undefined;
    },
    { timeoutMs: 30_000 },
  );
  assert.ok(st, 'a new balance check');
  return st;
}

test('a pool whose first key is drained stays enabled, its other keys take the sends; with every key drained it is disabled, one key funded enables it', async (t) => {
  for (const k of KEYS) await setBalance(k.address, 10n * ETH);
  const s = await build(t, {
    config: {
      networks: [anvil.network('anvil')],
      signers: KEYS.map((k, n) => ({ id: `key-${n}`, type: 'local', development: true, private_key: k.key })),
      relayers: [
        {
          id: POOL,
          name: 'pool',
          network: 'anvil',
          signer_ids: KEYS.map((_, n) => `key-${n}`),
          policies: { min_balance: 1e18 },
        },
      ],
      notifications: [],
      plugins: [],
    } as never,
  });
  // The check due at start first: a check forced while one runs would be folded into it.
  assert.ok(await eventually(async () => (await status(s)).balance_watch, { timeoutMs: 30_000 }));

  await setBalance(KEYS[0]!.address, 0n);
  const drained = await checkNow(s);
  assert.equal(drained.balance_watch.level, 'below_min_balance', 'the first key is what the status reads');
  assert.equal(drained.system_disabled, false, 'another key holds min_balance');
  assert.equal(drained.disabled_reason, null);

  const sends = [];
  for (let n = 0; n < 4; n++) sends.push(await s.request('POST', `${base}/transactions`, { body: SEND }));
  for (const r of sends) assert.equal(r.status, 200, r.text);
  for (const r of sends) assert.notEqual(r.body.data.from, KEYS[0]!.address, 'the drained key signs nothing');
  const final = await waitAllFinal(
    s,
    POOL,
    sends.map((r) => r.body.data.id),
  );
  for (const r of final) assert.equal(r.status, 'confirmed', JSON.stringify(r));
  // Only the drained key left the routing (the relayer's check judged every lane after the sends).
  const lanes = await eventually(
    async () => {
      const l = await lanesOf(s);
      return l[0]?.state === 'low_balance' ? l : undefined;
    },
    { timeoutMs: 30_000 },
  );
  assert.deepEqual(
    lanes?.map((l) => l.state),
    ['low_balance', 'active', 'active'],
  );

  for (const k of KEYS.slice(1)) await setBalance(k.address, 0n);
  const empty = await checkNow(s);
  assert.equal(empty.system_disabled, true, 'no key holds min_balance');
  assert.deepEqual(empty.disabled_reason, { type: 'BalanceCheckFailed', details: 'Insufficient balance' });

  await setBalance(KEYS[2]!.address, 10n * ETH);
  const one = await checkNow(s);
  assert.equal(one.balance_watch.level, 'below_min_balance');
  assert.equal(one.system_disabled, false, 'one key funded again');
  assert.equal(one.disabled_reason, null);
});
