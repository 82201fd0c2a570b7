// Against a real anvil (automine off, so sends stay in flight): the lookup by nonce and the cancel of every pending
// transaction, over HTTP and through the reference's own client, @openzeppelin/relayer-sdk.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Configuration, RelayersApi } from '@openzeppelin/relayer-sdk';
import { API_KEY, type TestServer } from '../../helper.ts';
import { startAnvil } from '../../support/anvil.ts';
import { buildOn, RELAYER, RELAYER_ADDRESS, TO, txPath, waitStatus } from './support.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const send = { to: TO, value: 1000, speed: 'fast' };
const pendingPath = `/api/v1/relayers/${RELAYER}/transactions/pending`;
const client = (s: TestServer) => new RelayersApi(new Configuration({ basePath: s.url, accessToken: API_KEY }));

/** Runs `fn` with automine off, and turns it back on whatever happens. */
async function manualMining<T>(fn: () => Promise<T>): Promise<T> {
  await anvil.setAutomine(false);
  try {
    return await fn();
  } finally {
    await anvil.setAutomine(true);
  }
}

async function sendSubmitted(s: TestServer, count: number): Promise<Array<Record<string, any>>> {
  const sent = [];
  for (let i = 0; i < count; i++) {
    const res = await s.request('POST', txPath(), { body: send });
    assert.equal(res.status, 200, res.text);
    sent.push(res.body.data);
  }
  for (const tx of sent) await waitStatus(s, tx.id, ['submitted']);
  return sent;
}

test('by nonce: the client reads in-flight and final transactions by nonce; an unused nonce is 404 with the reference text', async (t) => {
  const s = await buildOn(t, anvil);
  const api = client(s);
  const [first, second] = await manualMining(async () => {
    const sent = await sendSubmitted(s, 2);
    const inFlight = await api.getTransactionByNonce(RELAYER, sent[1]!.nonce);
    assert.equal(inFlight.status, 200);
    assert.deepEqual(inFlight.data.data, (await s.request('GET', txPath(sent[1]!.id))).body.data);
    assert.equal(inFlight.data.data!.status, 'submitted');
    await anvil.mine(1);
    return sent;
  });
  const done = await waitStatus(s, first!.id, ['confirmed']);
  const read = await api.getTransactionByNonce(RELAYER, first!.nonce);
  assert.equal(read.data.success, true);
  assert.deepEqual(read.data.data, done);
  assert.equal(read.data.data!.id, first!.id);
  assert.notEqual(first!.nonce, second!.nonce);

  const unused = second!.nonce + 100;
  await assert.rejects(api.getTransactionByNonce(RELAYER, unused), (err: any) => {
    assert.equal(err.response?.status, 404);
    assert.deepEqual(err.response.data, {
      success: false,
      data: null,
      error: `Transaction with nonce ${unused} not found`,
      message: 'Not found',
    });
    return true;
  });
});

test('delete pending: every in-flight transaction is canceled by a NOOP under its nonce, one already being canceled is listed as not queued', async (t) => {
  const s = await buildOn(t, anvil);
  const api = client(s);
  const chainNonce = Number(await anvil.rpc('eth_getTransactionCount', [RELAYER_ADDRESS, 'latest']));
  const toBefore = BigInt(await anvil.rpc('eth_getBalance', [TO, 'latest']));
  const sent = await manualMining(async () => {
    const txs = await sendSubmitted(s, 4);
    // One canceled alone first: the bulk cancel cannot queue it again.
    const alone = await s.request('DELETE', txPath(txs[0]!.id));
    assert.equal(alone.status, 200, alone.text);

    const res = await api.deletePendingTransactions(RELAYER);
    assert.equal(res.status, 200);
    assert.deepEqual(res.data, {
      success: true,
      data: {
        queued_for_cancellation_transaction_ids: txs.slice(1).map((tx) => tx.id),
        failed_to_queue_transaction_ids: [txs[0]!.id],
        total_processed: 4,
      },
      error: null,
    });
    for (const tx of txs) {
      const now = (await s.request('GET', txPath(tx.id))).body.data;
      assert.equal(now.is_canceled, true, `${tx.id} is being canceled`);
      assert.equal(now.nonce, tx.nonce);
    }
    // Every NOOP broadcast before the block: what is mined is the NOOPs.
    for (const tx of txs) await waitStatus(s, tx.id, ['submitted']);
    await anvil.mine(1);
    return txs;
  });
  for (const tx of sent) {
    const done = await waitStatus(s, tx.id, ['canceled', 'confirmed']);
    assert.equal(done.status, 'canceled', `${tx.id}: ${done.status_reason}`);
    assert.equal(await anvil.rpc('eth_getTransactionReceipt', [tx.hash]), null, 'the original never mined');
  }
  assert.equal(
    Number(await anvil.rpc('eth_getTransactionCount', [RELAYER_ADDRESS, 'latest'])),
    chainNonce + 4,
    'the NOOPs took the four nonces',
  );
  assert.equal(BigInt(await anvil.rpc('eth_getBalance', [TO, 'latest'])), toBefore, 'no transfer went through');

  // Nothing left to cancel: zero counts, and the route is never read as a transaction id.
  const again = await s.request('DELETE', pendingPath);
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.body.data, {
    queued_for_cancellation_transaction_ids: [],
    failed_to_queue_transaction_ids: [],
    total_processed: 0,
  });
});
