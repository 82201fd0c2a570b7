// 500 sends at once against a real anvil mining a block a second: every one confirmed, nonces contiguous, no gap on chain.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAnvil } from '../../support/anvil.ts';
import { buildOn, RELAYER_ADDRESS, TO, txPath, waitFor } from './support.ts';

const anvil = await startAnvil({ blockTimeMs: 1000 });
after(() => anvil.stop());
const SENDS = 500;

test('500 concurrent sends: all confirmed, contiguous nonces, the chain nonce moved by exactly 500', async (t) => {
  const s = await buildOn(t, anvil);
  const start = await anvil.pendingNonce(RELAYER_ADDRESS);
  const answers = await Promise.all(
    Array.from({ length: SENDS }, (_, i) =>
      s.request('POST', txPath(), { body: { to: TO, value: i + 1, speed: 'fast', gas_limit: 21_000 } }),
    ),
  );
  for (const a of answers) assert.equal(a.status, 200, a.text);
  const nonces = answers.map((a) => a.body.data.nonce as number).sort((a, b) => a - b);
  assert.deepEqual(
    nonces,
    Array.from({ length: SENDS }, (_, i) => start + i),
  );
  await waitFor(
    async () =>
      (await s.request('GET', `${txPath()}?status=confirmed&per_page=1`)).body.pagination.total_items as number,
    (n) => n === SENDS,
    120_000,
    'every send confirmed',
  );
  assert.equal(await anvil.pendingNonce(RELAYER_ADDRESS), start + SENDS, 'no gap and no extra transaction on chain');
  for (const a of answers.slice(0, 20)) {
    const receipt = await anvil.rpc<{ status: string }>('eth_getTransactionReceipt', [a.body.data.hash]);
    assert.equal(receipt.status, '0x1');
  }
});
