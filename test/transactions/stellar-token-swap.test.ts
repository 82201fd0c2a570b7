// Stellar token swaps (swap_config, strategy order-book): the relayer sells the fee tokens it collected back for XLM,
// on a SIMULATED Stellar network (test/support/stellar-rpc.ts: real XDR and signatures; path payments against a
// simulated book at a price the test sets) priced by a SIMULATED Horizon path endpoint (test/support/horizon-paths.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TransactionBuilder, type Operation, type Transaction } from '@stellar/stellar-base';
import { startStellarSim } from '../support/stellar-rpc.ts';
import { startHorizonSim } from '../support/horizon-paths.ts';
import { build } from '../helper.ts';
import { waitFor } from '../webhooks/support.ts';
import { stellarKey, stellarSetup } from './stellar-support.ts';
import { waitAllFinal } from './wait-final.ts';
import { nextCronTime } from '../../src/domain/jobs/cron.ts';
import { swapJobFor } from '../../src/domain/transactions/stellar/token-swap.ts';
import { swapAmount } from '../../src/domain/transactions/swap-amount.ts';
import type { RelayerRow } from '../../src/domain/relayers/ports.ts';

const RELAYER = 'xlm-swaps';
const USDC = `USDC:${stellarKey('USDC issuer').publicKey()}`;

test('cron schedules and swap amounts follow the reference', () => {
  const at = Date.parse('2026-01-01T00:07:30Z');
  assert.equal(new Date(nextCronTime('0 */6 * * *', at)).toISOString(), '2026-01-01T06:00:00.000Z');
  assert.equal(
    new Date(nextCronTime('*/5 * * * * *', at)).toISOString(),
    '2026-01-01T00:07:35.000Z',
    'six fields: seconds first',
  );
  assert.equal(new Date(nextCronTime('30 9 * * 1', at)).toISOString(), '2026-01-05T09:30:00.000Z', 'the first Monday');
  assert.throws(
    () => nextCronTime('61 * * * *', at),
    (err: { reason: string }) => /out of range for minute/.test(err.reason),
  );
  assert.equal(swapAmount(15_000n, { retain_min_amount: 500, min_amount: 1_000 }), 14_500n);
  assert.equal(swapAmount(15_000n, { max_amount: 10_000 }), 10_000n);
  assert.equal(
    swapAmount(1_200n, { retain_min_amount: 500, min_amount: 1_000 }),
    0n,
    'below min_amount once the retained part is kept',
  );
  assert.equal(swapAmount(400n, { retain_min_amount: 500 }), 0n);
  // The job a fee-collecting send makes sure of (swap_config given through the API has one from its first fee on).
  const row = (policies: unknown) => ({ id: 'r', network_type: 'stellar', policies }) as unknown as RelayerRow;
  const on = {
    fee_payment_strategy: 'user',
    swap_config: { strategies: ['order-book'], cron_schedule: '0 */6 * * *' },
  };
  assert.deepEqual(swapJobFor(row(on), at), {
    kind: 'stellar.token-swap',
    subject: 'r',
    dueAt: Date.parse('2026-01-01T06:00:00Z'),
  });
  assert.equal(swapJobFor(row({ ...on, fee_payment_strategy: 'relayer' }), at), null);
  assert.equal(swapJobFor(row({ ...on, swap_config: { strategies: [] } }), at), null);
});

test('simulated network and Horizon: the scheduled job sells collected USDC for XLM above retain_min_amount, again when more arrives, and a price beyond the slippage fails on chain', async (t) => {
  const sim = await startStellarSim({ ledgerMs: 50 });
  t.after(() => sim.close());
  const horizon = await startHorizonSim({ [USDC]: '0.15' });
  t.after(() => horizon.close());
  sim.setPrice(USDC, '0.15');
  sim.fund(stellarKey('USDC issuer').publicKey(), 100_000_000n);
  const policies = {
    fee_payment_strategy: 'user',
    allowed_tokens: [
      { asset: USDC, swap_config: { min_amount: 1_000, retain_min_amount: 500, slippage_percentage: 1 } },
    ],
    // Every second, so the test sees several runs; the balance threshold is never reached here.
    swap_config: { strategies: ['order-book'], cron_schedule: '* * * * * *', min_balance_threshold: 10 ** 15 },
  };
  const setup = stellarSetup(sim, RELAYER, { policies });
  setup.config.networks = setup.config.networks!.map((n) => ({ ...n, horizon_url: horizon.url }));
  const relayer = setup.address;
  sim.credit(relayer, USDC, 15_000n);
  const xlmBefore = sim.account(relayer)!.balance;
  const s = await build(t, { config: setup.config });
  const list = async () =>
    (await s.request('GET', `/api/v1/relayers/${RELAYER}/transactions?per_page=50`)).body.data as Array<{ id: string }>;

  // 14,500 units of USDC at 0.15 per XLM buy 96,666 stroops; at least 95,699 (1% slippage) is asked.
  await waitFor(async () => sim.assetBalance(relayer, USDC) === 500n, 'the first swap').catch((err) => {
    console.log(s.logs.filter((l) => JSON.stringify(l).includes('swap') || (l.level as number) >= 40).slice(-20));
    throw err;
  });
  const [first] = await waitAllFinal(
    s,
    RELAYER,
    (await list()).map((x) => x.id),
  );
  assert.equal(first!.status, 'confirmed', first!.status_reason);
  const op = (TransactionBuilder.fromXDR(first!.transaction_xdr, sim.passphrase) as Transaction)
    .operations[0] as Operation.PathPaymentStrictSend;
  assert.deepEqual(
    [op.type, op.sendAmount, op.destination, op.destAsset.isNative(), op.destMin],
    ['pathPaymentStrictSend', '0.0014500', relayer, true, '0.0095699'],
  );
  assert.equal(sim.account(relayer)!.balance, xlmBefore + 96_666n - 100n, 'XLM received, less the network fee');
  const asked = horizon.requests.find((r) => r.query.source_asset_type === 'credit_alphanum4')!;
  assert.deepEqual(asked.query, {
    source_asset_type: 'credit_alphanum4',
    source_asset_code: 'USDC',
    source_asset_issuer: USDC.split(':')[1],
    source_amount: '0.0014500',
    destination_assets: 'native',
  });

  // Runs go on (every second) without swapping what is retained; more fees arrive and the next run sells them.
  await new Promise((r) => setTimeout(r, 1_500));
  assert.equal((await list()).length, 1, 'nothing above retain_min_amount: no swap');
  sim.credit(relayer, USDC, 10_000n);
  await waitFor(async () => sim.assetBalance(relayer, USDC) === 500n, 'the second swap');

  // The book moved against the relayer after Horizon priced it: fewer XLM than the minimum, the swap fails on chain.
  sim.setPrice(USDC, '0.20');
  sim.credit(relayer, USDC, 10_000n);
  const failed = await waitFor(async () => {
    const finals = await waitAllFinal(
      s,
      RELAYER,
      (await list()).map((x) => x.id),
    );
    return finals.find((f) => f.status === 'failed');
  }, 'a swap beyond the slippage');
  assert.equal(failed.status_reason, 'tx_failed: op_under_dest_min');
  assert.equal(sim.assetBalance(relayer, USDC), 10_500n, 'nothing sold');
});
