// Against a real anvil the test drives (automine off, drops, outside senders, reorgs): every in-flight transaction
// still ends final. Each test leaves the chain mining and its transactions final.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { build } from '../../helper.ts';
import { ANVIL_KEYS, startAnvil } from '../../support/anvil.ts';
import { buildOn, eventStatuses, RELAYER_ADDRESS, statusPath, TO, txPath, waitFor, waitStatus } from './support.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const send = { to: TO, value: 1000, speed: 'fast' };

/** Runs `fn` with automine off, and turns it back on whatever happens. */
async function manualMining<T>(fn: () => Promise<T>): Promise<T> {
  await anvil.setAutomine(false);
  try {
    return await fn();
  } finally {
    await anvil.setAutomine(true);
  }
}

/** Waits until the node holds one of `hashes` (a record is written before its broadcast completes). */
async function waitInPool(hashes: string[], what: string): Promise<void> {
  const held = async () =>
    (await Promise.all(hashes.map((h) => anvil.rpc('eth_getTransactionByHash', [h])))).some((tx) => tx !== null);
  await waitFor(held, (yes) => yes, 20_000, what);
}

test('a transaction dropped from the pool is broadcast again and mined', async (t) => {
  const s = await buildOn(t, anvil);
  await manualMining(async () => {
    const sent = (await s.request('POST', txPath(), { body: send })).body.data;
    await waitStatus(s, sent.id, ['submitted']);
    await anvil.dropTransaction(sent.hash);
    await waitFor(
      () => anvil.txpool(),
      (pool) => Object.keys(pool.pending).length > 0,
      10_000,
      'the transaction back in the pool',
    );
    await anvil.mine(1);
    const done = await waitStatus(s, sent.id, ['confirmed']);
    assert.equal(done.hash, sent.hash);
  });
});

test('a replace while submitted: same nonce, new content, the record ends with the hash that was mined', async (t) => {
  const s = await buildOn(t, anvil);
  await manualMining(async () => {
    const sent = (await s.request('POST', txPath(), { body: send })).body.data;
    await waitStatus(s, sent.id, ['submitted']);
    const res = await s.request('PUT', txPath(sent.id), { body: { to: TO, value: 4242, speed: 'fast' } });
    assert.equal(res.status, 200, res.text);
    const replaced = res.body.data;
    assert.equal(replaced.nonce, sent.nonce);
    assert.ok(BigInt(replaced.max_fee_per_gas) >= (BigInt(sent.max_fee_per_gas) * 11n) / 10n, 'fees at least 10% up');
    await waitStatus(s, sent.id, ['submitted']);
    await waitInPool([replaced.hash], 'the replacement in the node pool');
    await anvil.mine(1);
    const done = await waitStatus(s, sent.id, ['confirmed']);
    assert.equal(done.hash, replaced.hash);
    assert.deepEqual(done.hashes, [sent.hash, replaced.hash]);
    const onChain = await anvil.rpc<{ value: string }>('eth_getTransactionByHash', [replaced.hash]);
    assert.equal(BigInt(onChain.value), 4242n);
  });
});

test('a cancel while submitted: the NOOP is mined, the transaction ends canceled', async (t) => {
  const s = await buildOn(t, anvil);
  await manualMining(async () => {
    const sent = (await s.request('POST', txPath(), { body: send })).body.data;
    await waitStatus(s, sent.id, ['submitted']);
    const canceled = (await s.request('DELETE', txPath(sent.id))).body.data;
    assert.equal(canceled.is_canceled, true);
    await waitStatus(s, sent.id, ['submitted']);
    await waitInPool([canceled.hash], 'the NOOP in the node pool');
    await anvil.mine(1);
    const done = await waitStatus(s, sent.id, ['canceled', 'confirmed']);
    assert.equal(done.status, 'canceled');
    assert.equal(done.hash, canceled.hash);
    assert.equal(await anvil.rpc('eth_getTransactionReceipt', [sent.hash]), null, 'the original never mined');
    assert.deepEqual(statusPath(eventStatuses(s, sent.id)).slice(-2), ['mined', 'canceled']);
  });
});

test('a cancel that comes after the original was mined ends confirmed', async (t) => {
  // Checks a block apart (20 s blocks): the cancel lands before the relayer has seen the block.
  const s = await buildOn(t, anvil, { network: { average_blocktime_ms: 20_000 } });
  await manualMining(async () => {
    const sent = (await s.request('POST', txPath(), { body: send })).body.data;
    await waitStatus(s, sent.id, ['submitted']);
    await anvil.mine(1);
    const res = await s.request('DELETE', txPath(sent.id));
    assert.equal(res.status, 200, res.text);
    const done = await waitStatus(s, sent.id, ['canceled', 'confirmed']);
    assert.equal(done.status, 'confirmed');
    assert.equal(done.hash, sent.hash);
    assert.match(done.status_reason, /mined before the cancel/);
  });
});

test('valid_until passes before it is mined: a NOOP takes the nonce and it ends expired', async (t) => {
  const s = await buildOn(t, anvil);
  await manualMining(async () => {
    const sent = (
      await s.request('POST', txPath(), { body: { ...send, valid_until: new Date(Date.now() + 2_000).toISOString() } })
    ).body.data;
    await waitStatus(s, sent.id, ['submitted']);
    const expiring = await waitFor(
      async () => (await s.request('GET', txPath(sent.id))).body.data,
      (tx) => tx.noop_hashes.length > 0 && tx.status === 'submitted',
      20_000,
      'the NOOP broadcast',
    );
    // Mine only once the node holds a NOOP (it then replaced the original in the pool), or a loaded machine mines the
    // original first and the test sees a legitimate 'confirmed'.
    await waitInPool(expiring.noop_hashes, 'a NOOP in the node pool');
    await anvil.mine(1);
    const done = await waitStatus(s, sent.id, ['expired', 'confirmed']);
    assert.equal(done.status, 'expired');
    assert.equal(await anvil.rpc('eth_getTransactionReceipt', [sent.hash]), null);
  });
});

test('the original mined after all, not its expiry NOOP: confirmed, and the record describes what was mined', async (t) => {
  const s = await buildOn(t, anvil);
  await manualMining(async () => {
    const sent = (
      await s.request('POST', txPath(), { body: { ...send, valid_until: new Date(Date.now() + 2_000).toISOString() } })
    ).body.data;
    await waitStatus(s, sent.id, ['submitted']);
    const original = await anvil.rpc('eth_getRawTransactionByHash', [sent.hash]);
    const expiring = await waitFor(
      async () => (await s.request('GET', txPath(sent.id))).body.data,
      (tx) => tx.noop_hashes.length > 0 && tx.status === 'submitted',
      20_000,
      'the NOOP broadcast',
    );
    await waitInPool(expiring.noop_hashes, 'a NOOP in the node pool');
    assert.equal(expiring.value, '0', 'the record now describes the NOOP');
    // The NOOP leaves the pool and the original comes back (another node had it): the original is what is mined.
    for (const h of expiring.noop_hashes) await anvil.rpc('anvil_dropTransaction', [h]);
    await anvil.rpc('eth_sendRawTransaction', [original]);
    await anvil.mine(1);
    const done = await waitStatus(s, sent.id, ['expired', 'confirmed']);
    assert.equal(done.status, 'confirmed');
    assert.equal(done.hash, sent.hash);
    assert.deepEqual(
      [done.to, done.value, done.max_fee_per_gas, done.gas_limit],
      [sent.to, sent.value, sent.max_fee_per_gas, sent.gas_limit],
      "the original's content and prices, not the NOOP's",
    );
    assert.equal(done.status_reason, 'mined before the NOOP could take its nonce');
  });
});

test('a transaction from elsewhere takes our nonce: ours is re-signed with the next nonce and mined', async (t) => {
  const s = await buildOn(t, anvil);
  await manualMining(async () => {
    const sent = (await s.request('POST', txPath(), { body: send })).body.data;
    await waitStatus(s, sent.id, ['submitted']);
    // The same key used outside Relaybox, with a higher price: it replaces ours in the pool and is mined.
    const outside = await anvil.sendFrom(ANVIL_KEYS[0], {
      nonce: sent.nonce,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 50_000_000_000n,
      value: 7n,
    });
    await anvil.mine(1);
    await anvil.waitMined(outside);
    const renonced = await waitFor(
      async () => (await s.request('GET', txPath(sent.id))).body.data,
      (tx) => tx.nonce !== sent.nonce && tx.status === 'submitted',
      20_000,
      'the re-nonced transaction',
    );
    assert.equal(renonced.nonce, sent.nonce + 1);
    await anvil.mine(1);
    const done = await waitStatus(s, sent.id, ['confirmed']);
    assert.equal(done.hash, renonced.hash);
    assert.match(done.status_reason ?? '', /./, 'the reason says why it was re-signed');
  });
});

test('a nonce gap below our transaction (the store ahead of the chain) is filled with NOOPs', async (t) => {
  const chainNonce = await anvil.pendingNonce(RELAYER_ADDRESS);
  const s = await buildOn(t, anvil);
  // As if two sends had been recorded and never reached the chain (a database restored over a newer chain).
  s.app.db.prepare('UPDATE relayers SET next_nonce = ? WHERE id = ?').run(chainNonce + 2, 'relay');
  const sent = (await s.request('POST', txPath(), { body: send })).body.data;
  assert.equal(sent.nonce, chainNonce + 2);
  const done = await waitStatus(s, sent.id, ['confirmed']);
  assert.equal(done.nonce, chainNonce + 2);
  assert.equal(await anvil.pendingNonce(RELAYER_ADDRESS), chainNonce + 3, 'nonces below it were used by NOOPs');
});

test('a mined transaction whose block is reorged away is tracked again and confirmed at depth', async (t) => {
  const s = await buildOn(t, anvil, { network: { required_confirmations: 3 } });
  const sent = (await s.request('POST', txPath(), { body: send })).body.data;
  await waitStatus(s, sent.id, ['mined']);
  await manualMining(async () => {
    await anvil.reorg(1);
    await waitStatus(s, sent.id, ['submitted']);
  });
  await anvil.mine(1);
  await waitStatus(s, sent.id, ['mined']);
  await anvil.mine(2);
  const done = await waitStatus(s, sent.id, ['confirmed']);
  assert.equal(done.hash, sent.hash);
  assert.deepEqual(statusPath(eventStatuses(s, sent.id)), [
    'sent',
    'submitted',
    'mined',
    'submitted',
    'mined',
    'confirmed',
  ]);
});

test('a dead first RPC URL does not fail sends: the next URL relays', async (t) => {
  const s = await buildOn(t, anvil, {
    network: {
      rpc_urls: [
        { url: 'http://127.0.0.1:1', weight: 100 },
        { url: anvil.url, weight: 50 },
      ],
    },
  });
  const sent = await s.request('POST', txPath(), { body: send });
  assert.equal(sent.status, 200, sent.text);
  await waitStatus(s, sent.body.data.id, ['confirmed']);
});

test('a relayer that leaves the config with a transaction in flight: reported untracked, then resumed when it is back', async (t) => {
  const first = await buildOn(undefined, anvil);
  const dataDir = first.dataDir;
  t.after(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));
  let id = '';
  await manualMining(async () => {
    id = (await first.request('POST', txPath(), { body: send })).body.data.id;
    await waitStatus(first, id, ['submitted']);
    // The app only: TestServer.close would remove the data directory the next start reuses.
    await first.app.close();
    const without = await build(undefined, {
      dataDir,
      config: {
        networks: [anvil.network('anvil')],
        signers: [{ id: 'key', type: 'local', development: true, private_key: ANVIL_KEYS[1] }],
        relayers: [{ id: 'someone-else', name: 'another relayer', network: 'anvil', signer_id: 'key' }],
        notifications: [],
        plugins: [],
      },
    });
    await waitFor(
      async () => (await without.request('GET', '/metrics')).text,
      (text) => /relaybox_transactions_untracked\{relayer="relay"\} 1/.test(text),
      20_000,
      'the untracked metric',
    );
    assert.ok(without.logs.some((l) => l.relayerId === 'relay' && /not tracked/.test(String(l.msg))));
    await without.app.close();
  });
  const back = await buildOn(t, anvil, { dataDir });
  await waitStatus(back, id, ['confirmed']);
});
