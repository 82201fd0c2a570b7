// Against a real anvil: a send goes sent → submitted → mined → confirmed, a revert fails with its reason,
// and the send path's pricing, gas estimation and balance check use the chain.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { revertData, revertingCode, startAnvil } from '../../support/anvil.ts';
import { buildOn, eventStatuses, RELAYER_ADDRESS, statusPath, TO, txPath, waitStatus } from './support.ts';

const anvil = await startAnvil();
after(() => anvil.stop());

test('a send is broadcast, mined and confirmed: balance moved, sent_at and confirmed_at set, one event per status', async (t) => {
  const s = await buildOn(t, anvil, { network: { required_confirmations: 2 } });
  const before = BigInt(await anvil.rpc('eth_getBalance', [TO, 'latest']));
  const nonce = Number(await anvil.rpc('eth_getTransactionCount', [RELAYER_ADDRESS, 'latest']));
  const res = await s.request('POST', txPath(), { body: { to: TO, value: '1000000000000000000', speed: 'fast' } });
  assert.equal(res.status, 200, res.text);
  const sent = res.body.data;
  assert.equal(sent.status, 'sent');
  assert.equal(sent.gas_limit, 21000, 'a plain transfer is estimated at 21,000');
  assert.equal(sent.nonce, nonce, 'the nonce follows the chain');
  const mined = await waitStatus(s, sent.id, ['mined', 'confirmed']);
  assert.ok(mined.sent_at, 'sent_at is set once broadcast');
  await anvil.mine(1);
  const done = await waitStatus(s, sent.id, ['confirmed']);
  assert.ok(done.confirmed_at);
  assert.equal(done.hash, sent.hash);
  assert.equal(BigInt(await anvil.rpc('eth_getBalance', [TO, 'latest'])) - before, 10n ** 18n);
  assert.deepEqual(statusPath(eventStatuses(s, sent.id)), ['sent', 'submitted', 'mined', 'confirmed']);
  const metrics = await s.request('GET', '/metrics');
  assert.match(
    metrics.text,
    /relaybox_transaction_transitions_total\{network_type="evm",from="mined",to="confirmed"\} 1/,
  );
  assert.match(metrics.text, /relaybox_transactions\{relayer="relay",status="confirmed",store="sqlite"\} 1/);
});

test('a transaction that reverts on chain ends failed with the revert reason', async (t) => {
  const s = await buildOn(t, anvil);
  const target = '0x00000000000000000000000000000000000000b1';
  await anvil.setCode(target, revertingCode(revertData.error('not allowed')));
  const res = await s.request('POST', txPath(), {
    body: { to: target, value: 0, data: '0x12345678', gas_limit: 100000, speed: 'average' },
  });
  assert.equal(res.status, 200, res.text);
  const failed = await waitStatus(s, res.body.data.id, ['failed', 'confirmed']);
  assert.equal(failed.status, 'failed');
  assert.match(failed.status_reason, /not allowed/);
  assert.equal(failed.confirmed_at, null);
});

test('without gas_limit a call is estimated; one that would revert is refused with the reason', async (t) => {
  const s = await buildOn(t, anvil);
  const target = '0x00000000000000000000000000000000000000b2';
  await anvil.setCode(target, revertingCode(revertData.error('estimate says no')));
  const res = await s.request('POST', txPath(), { body: { to: target, value: 0, data: '0x12345678', speed: 'fast' } });
  assert.equal(res.status, 400);
  assert.match(res.body.error, /gas estimation failed: .*estimate says no/);
});

test('a relayer that cannot pay gets a clear 400 before anything is signed', async (t) => {
  // A funded key is not needed to be refused: anvil's accounts beyond the first ten start empty.
  const s = await buildOn(t, anvil, { key: '0x' + '42'.repeat(32) });
  const res = await s.request('POST', txPath(), { body: { to: TO, value: 1, speed: 'fast' } });
  assert.equal(res.status, 400);
  assert.match(
    res.body.error,
    /^Insufficient balance: Relayer balance 0 is insufficient to cover \d+: \d+ wei missing/,
  );
  assert.equal((await s.request('GET', txPath())).body.pagination.total_items, 0);
});

test('explicit prices are used as given', async (t) => {
  const s = await buildOn(t, anvil);
  const res = await s.request('POST', txPath(), {
    body: { to: TO, value: 1, max_fee_per_gas: 30_000_000_000, max_priority_fee_per_gas: 2_000_000_000 },
  });
  assert.equal(res.status, 200, res.text);
  const done = await waitStatus(s, res.body.data.id, ['confirmed']);
  assert.equal(done.max_fee_per_gas, '30000000000');
  const onChain = await anvil.rpc<{ maxFeePerGas: string }>('eth_getTransactionByHash', [done.hash]);
  assert.equal(BigInt(onChain.maxFeePerGas), 30_000_000_000n);
});
