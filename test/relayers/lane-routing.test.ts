// Issue 44: which lane of a key pool takes a send, and when a lane leaves the routing. The routing and the lane's
// judgement are pure (their reads given as functions): the end-to-end cases are in key-pools.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLaneRouter, noLaneError } from '../../src/domain/relayers/lane-routing.ts';
import { judgeLane } from '../../src/domain/transactions/evm/lane-health.ts';
import type { LaneRow, RelayerRow, StoredTransaction } from '../../src/domain/relayers/ports.ts';

const relayer = { id: 'p', address: '0xA', signer_id: 'a', next_nonce: 0, last_created_ms: 0 } as RelayerRow;
const lane = (address: string, position: number, extra: Partial<LaneRow> = {}): LaneRow => ({
  relayer_id: 'p',
  address,
  signer_id: address.toLowerCase(),
  position,
  max_pending: 4,
  next_nonce: 0,
  last_created_ms: 0,
  state: 'active',
  state_reason: null,
  ...extra,
});

function router(lanes: LaneRow[], pending: Record<string, number>) {
  let clock = 0;
  const r = createLaneRouter(
    { isPool: (id) => id === 'p', lanes: async () => lanes, lanePending: async () => ({ ...pending }) },
    () => clock,
  );
  return { r, tick: (ms: number) => (clock += ms) };
}

test('no pool: no routing (the relayer sends as it always did)', async () => {
  const { r } = router([], {});
  assert.equal(await r.candidates({ ...relayer, id: 'single' }), null);
});

test('the lane with the most room comes first; full lanes and lanes out of the routing are not offered, with their reason', async () => {
  const lanes = [
    lane('0xA', 0),
    lane('0xB', 1),
    lane('0xC', 2, { state: 'fee_cap', state_reason: 'waits at the cap' }),
    lane('0xD', 3),
  ];
  const { r } = router(lanes, { '': 2, '0xB': 1, '0xD': 4 });
  const got = (await r.candidates(relayer))!;
  assert.deepEqual(
    got.offered.map((c) => c.lane.address),
    ['0xB', '0xA'],
  );
  assert.equal(got.offered[1]!.row, relayer, "the first key's lane is the relayer row itself");
  assert.equal(got.offered[0]!.row.id, 'p#0xB');
  assert.equal(got.offered[0]!.row.signer_id, '0xb');
  assert.deepEqual(
    got.skipped.map((s) => [s.address, s.why]),
    [
      ['0xC', 'waits at the cap'],
      ['0xD', '4 of 4 pending (max_pending_per_key)'],
    ],
  );
  // The send just routed counts at once (same read): 0xA and 0xB now have as much room, and take turns.
  const turns = [];
  for (let k = 0; k < 4; k++) turns.push((await r.candidates(relayer))!.offered[0]!.lane.address);
  assert.deepEqual(turns.slice(0, 2).sort(), ['0xA', '0xB'], turns.join(' '));
});

test('a lane under its balance, or one that just refused a send, is offered last; a refused one comes back after a while', async () => {
  const { r, tick } = router([lane('0xA', 0, { state: 'low_balance' }), lane('0xB', 1), lane('0xC', 2)], {});
  const first = (await r.candidates(relayer))!;
  assert.deepEqual(
    first.offered.map((c) => c.lane.address),
    ['0xB', '0xC', '0xA'],
  );
  r.refused(first.offered[0]!);
  tick(300);
  assert.deepEqual(
    (await r.candidates(relayer))!.offered.map((c) => c.lane.address),
    ['0xC', '0xB', '0xA'],
  );
  tick(3_000);
  const back = (await r.candidates(relayer))!.offered.map((c) => c.lane.address);
  assert.deepEqual(
    [back.slice(0, 2).sort(), back[2]],
    [['0xB', '0xC'], '0xA'],
    'back among the healthy ones; the low one still last',
  );
});

test('no lane left: 503 NO_LANE_AVAILABLE saying why key by key; every key short of funds: INSUFFICIENT_BALANCE', () => {
  const busy = noLaneError('p', [
    { address: '0xA', state: 'active', why: '4 of 4 pending (max_pending_per_key)', funds: false },
    { address: '0xB', state: 'active', why: 'Insufficient balance: …', funds: true },
  ]);
  assert.equal(busy.code, 'NO_LANE_AVAILABLE');
  assert.equal(busy.status, 503);
  assert.equal(busy.headers?.['Retry-After'], '1');
  assert.equal(
    busy.reason,
    "no key of relayer 'p' can take this transaction now: 0xA: 4 of 4 pending (max_pending_per_key); 0xB: Insufficient balance: …",
  );
  const broke = noLaneError('p', [{ address: '0xA', state: 'active', why: 'short', funds: true }]);
  assert.equal(broke.code, 'INSUFFICIENT_BALANCE');
  assert.equal(broke.status, 400);
});

test("a lane's state: signer, fee cap, a transaction unmined too long, its balance; active otherwise", () => {
  const tx = (extra: Record<string, unknown>) =>
    ({
      record: {
        id: 't',
        relayer_id: 'p',
        status: 'submitted',
        status_reason: null,
        created_at: new Date(0).toISOString(),
        sent_at: null,
        confirmed_at: null,
        ...extra,
      },
      version: 1,
    }) as StoredTransaction;
  const funds = { balance: 10n, reserved: 0n, min: 0n };
  const now = 1_000;
  assert.equal(judgeLane({ active: [], signerFailed: true }, funds, 60_000, now).state, 'signer_failing');
  assert.equal(
    judgeLane(
      { active: [tx({ status_reason: 'waiting at the fee cap: the network asks 9 wei' })], signerFailed: false },
      funds,
      60_000,
      now,
    ).state,
    'fee_cap',
  );
  assert.equal(judgeLane({ active: [tx({})], signerFailed: false }, funds, 60_000, 61_001).state, 'stuck');
  assert.equal(
    judgeLane({ active: [tx({ status: 'mined' })], signerFailed: false }, funds, 60_000, 61_001).state,
    'active',
    'a mined one waits for depth, not on the key',
  );
  assert.equal(
    judgeLane({ active: [], signerFailed: false }, { balance: 0n, reserved: 0n, min: 0n }, 60_000, now).state,
    'low_balance',
  );
  assert.equal(
    judgeLane({ active: [], signerFailed: false }, { balance: 10n, reserved: 8n, min: 3n }, 60_000, now).state,
    'low_balance',
  );
  assert.deepEqual(
    judgeLane({ active: [tx({})], signerFailed: false }, { balance: null, reserved: 0n, min: 0n }, 60_000, now),
    { state: 'active', reason: null },
  );
});
