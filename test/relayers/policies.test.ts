// The reference's EVM relayer policies as a pure check over one prepared transaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capPricing, checkEvmPolicies, type PolicyTx } from '../../src/domain/relayers/policies.ts';
import { parsePolicies } from '../../src/config/relayer-policies.ts';
import { refusal } from '../../src/domain/transactions/evm/funds.ts';

const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const tx = (extra: Partial<PolicyTx> = {}): PolicyTx => ({
  to: TO,
  value: 1000n,
  gasLimit: 21_000n,
  gasLimitGiven: true,
  pricing: { type: 'eip1559', maxFeePerGas: 100n, maxPriorityFeePerGas: 2n },
  explicitPrices: true,
  ...extra,
});

test('no policies, or policies the transaction keeps, pass', () => {
  assert.equal(checkEvmPolicies({}, tx()), null);
  assert.equal(
    checkEvmPolicies({ whitelist_receivers: [TO.toLowerCase()], gas_price_cap: 100, min_balance: 10 }, tx()),
    null,
    "min_balance is the funds ledger's to check",
  );
});

test('whitelist_receivers: other receivers and contract creations are refused', () => {
  assert.match(
    checkEvmPolicies({ whitelist_receivers: ['0x0000000000000000000000000000000000000001'] }, tx())!,
    /not in the relayer's whitelist_receivers/,
  );
  assert.match(checkEvmPolicies({ whitelist_receivers: [TO] }, tx({ to: null }))!, /allows no contract creation/);
  assert.equal(checkEvmPolicies({ whitelist_receivers: [] }, tx({ to: null })), null, 'an empty list allows all');
});

test('gas_price_cap: explicit prices above it are refused; speed prices are lowered to it', () => {
  assert.match(
    checkEvmPolicies({ gas_price_cap: 99 }, tx())!,
    /gas price 100 wei is above the relayer's gas_price_cap of 99 wei/,
  );
  assert.match(checkEvmPolicies({ gas_price_cap: '50' }, tx({ pricing: { type: 'legacy', gasPrice: 51n } }))!, /above/);
  assert.deepEqual(
    capPricing({ gas_price_cap: 50 }, { type: 'eip1559', maxFeePerGas: 80n, maxPriorityFeePerGas: 60n }),
    { type: 'eip1559', maxFeePerGas: 50n, maxPriorityFeePerGas: 50n },
  );
  assert.deepEqual(capPricing({ gas_price_cap: 50 }, { type: 'legacy', gasPrice: 10n }), {
    type: 'legacy',
    gasPrice: 10n,
  });
});

test('gas_limit_estimation false needs an explicit gas_limit; eip1559_pricing false refuses explicit EIP-1559 fees', () => {
  assert.match(
    checkEvmPolicies({ gas_limit_estimation: false }, tx({ gasLimitGiven: false }))!,
    /'gas_limit' is required/,
  );
  assert.equal(checkEvmPolicies({ gas_limit_estimation: false }, tx()), null);
  assert.match(checkEvmPolicies({ eip1559_pricing: false }, tx())!, /eip1559_pricing policy is false/);
  assert.equal(checkEvmPolicies({ eip1559_pricing: false }, tx({ pricing: { type: 'legacy', gasPrice: 5n } })), null);
});

test('funds: the balance less what unmined sends hold and min_balance must cover the worst case; what was released since the balance was read counts as spent', () => {
  const ask = { relayerId: 'r', cost: 1000n, minBalance: 500n, parts: 'value + gas_limit × fee' };
  const snapshot = { balance: 10_000n, ledger: { reserved: 0n, released: 7n }, at: 0 };
  assert.equal(refusal(snapshot, snapshot.ledger, 8_500n, ask), null, 'exactly covered');
  const short = refusal(snapshot, snapshot.ledger, 8_501n, ask)!;
  assert.equal(short.code, 'INSUFFICIENT_BALANCE');
  assert.equal(short.status, 400);
  assert.match(
    short.reason,
    /^Insufficient balance: Relayer balance 10000 is insufficient to cover 1000 on top of 8501 wei reserved by its unmined transactions, with an enforced minimum balance of 500: 1 wei missing/,
  );
  // 2,000 wei released since the balance was read: they may have left it after the read.
  assert.equal(refusal(snapshot, { reserved: 0n, released: 2_007n }, 6_500n, ask), null);
  assert.match(
    refusal(snapshot, { reserved: 0n, released: 2_007n }, 6_501n, ask)!.reason,
    /Relayer balance 8000 is insufficient to cover 1000 on top of 6501 wei reserved .*: 1 wei missing/,
  );
  assert.match(
    refusal({ ...snapshot, balance: 0n }, snapshot.ledger, 0n, { ...ask, minBalance: 0n })!.reason,
    /^Insufficient balance: Relayer balance 0 is insufficient to cover 1000: 1000 wei missing/,
  );
  // Exact far past 2^53 and 2^64.
  const big = 2n ** 128n + 3n;
  assert.equal(refusal({ ...snapshot, balance: big }, snapshot.ledger, big - 1500n, ask), null);
  assert.match(refusal({ ...snapshot, balance: big }, snapshot.ledger, big - 1499n, ask)!.reason, /: 1 wei missing/);
});

const reason = (pattern: RegExp) => (err: unknown) => pattern.test((err as { reason?: string }).reason ?? '');

test('policies are validated per network type; private_transactions true is refused with the reason', () => {
  assert.deepEqual(parsePolicies('evm', { min_balance: 0, gas_price_cap: null }), { min_balance: 0 });
  assert.throws(
    () => parsePolicies('evm', { private_transactions: true }),
    reason(/private_transactions' cannot be true: Relaybox has no private transaction relay/),
  );
  assert.throws(
    () => parsePolicies('evm', { fee_payment_strategy: 'user' }),
    reason(/unknown field 'policies.fee_payment_strategy'/),
  );
  assert.deepEqual(
    parsePolicies('solana', {
      fee_payment_strategy: 'user',
      allowed_tokens: [{ mint: 'So11111111111111111111111111111111111111112' }],
    }).fee_payment_strategy,
    'user',
  );
  assert.throws(
    () => parsePolicies('stellar', { max_fee: -1 }),
    reason(
      /'policies.max_fee' must be a non-negative integer \(stroops, at most 2\^64 - 1\), as a JSON number or a decimal string, or null/,
    ),
  );
});
