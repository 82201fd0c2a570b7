// The Jupiter adapter (src/chains/solana/jupiter.ts): against the SIMULATED Jupiter API of test support for its
// shapes and errors, and the reference's 1:1 stand-in on networks named devnet and testnet (no HTTP at all).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSolanaDex } from '../../../src/chains/solana/jupiter.ts';
import type { AppError } from '../../../src/errors.ts';
import { startSolanaSim } from '../../support/solana-rpc.ts';
import { startJupiterSim, WSOL } from '../../support/jupiter-api.ts';

const sol = await startSolanaSim();
const jup = await startJupiterSim(sol);
after(() => Promise.all([jup.close(), sol.close()]));

test('quotes carry the amounts and the slippage threshold as Jupiter sends them; an untradable token is CHAIN_UNAVAILABLE with its text', async () => {
  const mint = await sol.createMint(6);
  jup.setPrice(mint, 150_000_000n, 6);
  const dex = createSolanaDex('mainnet-beta', `${jup.url}/`);
  const quote = await dex.quote(WSOL, mint, 1_000_000_000n, 0.5);
  assert.deepEqual(
    [quote.inAmount, quote.outAmount, quote.otherAmountThreshold, quote.slippageBps],
    [1_000_000_000n, 150_000_000n, 149_250_000n, 50],
  );
  assert.equal(jup.quotes.at(-1)?.get('slippageBps'), '50');
  await assert.rejects(
    dex.quote(WSOL, await sol.createMint(6), 1n, 1),
    (err: AppError) =>
      err.code === 'CHAIN_UNAVAILABLE' && /^Jupiter quote failed: HTTP 400 \(TOKEN_NOT_TRADABLE\)$/.test(err.reason),
  );
});

test('an unreachable API is named without its URL (it may carry a key)', async () => {
  const dex = createSolanaDex('mainnet-beta', 'http://user:secret@127.0.0.1:1');
  await assert.rejects(
    dex.quote(WSOL, WSOL, 1n, 1),
    (err: AppError) => err.reason === 'Jupiter quote failed: the API is unreachable' && !err.reason.includes('secret'),
  );
});

test('devnet and testnet: 1:1 quotes and refused swaps, as the reference, without calling the API', async () => {
  const calls = jup.calls.get('/swap/v1/quote') ?? 0;
  for (const network of ['devnet', 'testnet']) {
    const dex = createSolanaDex(network, jup.url);
    const quote = await dex.quote(WSOL, 'anything', 12_345n, 1);
    assert.equal(quote.outAmount, 12_345n);
    await assert.rejects(
      dex.swapTransaction(quote, 'me', {}),
      (err: AppError) => err.reason === `Jupiter has no ${network} API: token swaps run on mainnet only`,
    );
  }
  assert.equal(jup.calls.get('/swap/v1/quote') ?? 0, calls);
});
