// The relayer rows held for the send path (src/domain/relayers/row-cache.ts), on a clock the test moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRelayerRowCache, ROW_HOLD_MS, sameSettings } from '../../src/domain/relayers/row-cache.ts';
import type { RelayerRow } from '../../src/domain/relayers/ports.ts';

const row = (id: string, extra: Partial<RelayerRow> = {}): RelayerRow => ({
  id,
  name: id,
  network: 'local',
  network_type: 'evm',
  signer_id: 's',
  address: '0x01',
  paused: false,
  notification_id: null,
  policies: null,
  custom_rpc_urls: null,
  system_disabled: false,
  disabled_reason: null,
  source: 'config',
  next_nonce: 0,
  last_created_ms: 0,
  ...extra,
});

function setup() {
  let clock = 1_000;
  const reads: string[] = [];
  const stored = new Map<string, RelayerRow>([['a', row('a')]]);
  let failing = false;
  const cache = createRelayerRowCache(
    async (id) => {
      reads.push(id);
      if (failing) throw new Error('store down');
      return stored.get(id);
    },
    () => clock,
  );
  return { cache, reads, stored, tick: (ms: number) => (clock += ms), fail: (on: boolean) => (failing = on) };
}

test('concurrent gets share one read; the row is served without a read until the hold time passes', async () => {
  const s = setup();
  const [a, b] = await Promise.all([s.cache.get('a'), s.cache.get('a')]);
  assert.equal(a, b);
  assert.deepEqual(s.reads, ['a']);
  assert.equal(s.cache.held('a'), a);
  s.tick(ROW_HOLD_MS - 1);
  await s.cache.get('a');
  assert.equal(s.reads.length, 1);
  s.tick(1);
  await s.cache.get('a');
  assert.equal(s.reads.length, 2);
});

test('a missing relayer or a failed read is not held; put and forget replace and drop the row', async () => {
  const s = setup();
  assert.equal(await s.cache.get('nope'), undefined);
  assert.equal(await s.cache.get('nope'), undefined);
  assert.equal(s.reads.length, 2, 'the absence was not held');
  s.fail(true);
  await assert.rejects(s.cache.get('a'));
  s.fail(false);
  assert.equal((await s.cache.get('a'))?.id, 'a');
  assert.equal(s.reads.length, 4, 'the failure was not held');
  s.cache.put(row('a', { next_nonce: 5 }));
  assert.equal((await s.cache.get('a'))?.next_nonce, 5);
  s.cache.forget('a');
  assert.equal(s.cache.held('a'), undefined);
  assert.equal((await s.cache.get('a'))?.next_nonce, 0);
});

test('sameSettings ignores the nonce and clock, and nothing else', () => {
  assert.equal(sameSettings(row('a'), row('a', { next_nonce: 9, last_created_ms: 99 })), true);
  assert.equal(sameSettings(row('a'), row('a', { paused: true })), false);
  assert.equal(sameSettings(row('a'), row('a', { policies: { gas_price_cap: 1 } })), false);
  assert.equal(sameSettings(row('a'), row('a', { custom_rpc_urls: [{ url: 'http://x', weight: 100 }] })), false);
});
