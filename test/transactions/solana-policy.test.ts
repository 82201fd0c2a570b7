// The relayer's Solana policies (the reference's RelayerSolanaPolicy fields), checked on what the adapter reports of a
// signed transaction. Pure checks: the end-to-end refusals run in solana-relay.test.ts on the simulated network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSolanaBalance, checkSolanaPolicy } from '../../src/domain/transactions/solana/policy.ts';
import type { SignedSolanaTransaction } from '../../src/domain/chains/solana/ports.ts';

const SYSTEM = '11111111111111111111111111111111';
const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const signed: SignedSolanaTransaction = {
  signature: 'sig',
  transaction: 'AA==',
  feePayer: 'payer',
  blockhash: 'hash',
  lastValidBlockHeight: null,
  resignable: true,
  fee: 10_000n,
  programs: [SYSTEM, MEMO],
  accounts: ['payer', 'dest', SYSTEM, MEMO],
  requiredSignatures: 2,
  size: 300,
};

test('each policy refuses with the reference text, and passes when absent or met', () => {
  assert.doesNotThrow(() => checkSolanaPolicy(signed, {}));
  assert.doesNotThrow(() =>
    checkSolanaPolicy(signed, {
      allowed_programs: [SYSTEM, MEMO],
      max_signatures: 2,
      max_allowed_fee_lamports: 10_000,
      max_tx_data_size: 300,
    }),
  );
  const refusals: Array<[Parameters<typeof checkSolanaPolicy>[1], RegExp]> = [
    [
      { allowed_programs: [SYSTEM] },
      /^Policy violation: Program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr not allowed$/,
    ],
    [{ allowed_accounts: ['payer', SYSTEM, MEMO] }, /Account dest not allowed/],
    [{ disallowed_accounts: ['dest'] }, /Account dest is explicitly disallowed/],
    [{ max_signatures: 1 }, /Transaction requires 2 signatures, which exceeds maximum allowed 1/],
    [{ max_tx_data_size: 299 }, /Transaction size 300 exceeds maximum allowed 299/],
    [{ max_allowed_fee_lamports: '9999' }, /Fee amount 10000 exceeds max allowed fee amount 9999/],
  ];
  for (const [policy, text] of refusals)
    assert.throws(
      () => checkSolanaPolicy(signed, policy),
      (err: Error & { reason?: string }) => text.test(err.reason ?? err.message),
      JSON.stringify(policy),
    );
  assert.throws(
    () => checkSolanaPolicy({ ...signed, size: 1233 }, {}),
    (err: Error & { reason?: string }) => /exceeds maximum allowed 1232/.test(err.reason ?? ''),
    'the default size limit is a packet',
  );
});

test('the relayer keeps min_balance after the fee (default 0.01 SOL)', () => {
  assert.doesNotThrow(() => checkSolanaBalance(10_005_000n, 5_000n, {}));
  assert.throws(
    () => checkSolanaBalance(10_004_999n, 5_000n, {}),
    (err: Error & { reason?: string }) =>
      /Required: 10005000, Available: 10004999, Fee: 5000, Min balance: 10000000/.test(err.reason ?? ''),
  );
  assert.doesNotThrow(() => checkSolanaBalance(6_000n, 5_000n, { min_balance: 1_000 }));
});
