// The native signer must produce exactly the bytes viem's own (JavaScript) signer produces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { parseTransaction, recoverTransactionAddress, type Hex, type TransactionSerializable } from 'viem';
import { signEvm, type EvmPrepared } from '../../src/domain/transactions/evm/transaction.ts';
import { resolveSigner } from '../../src/signers/local/resolve.ts';

// Hardhat account #0: a publicly known development key.
const KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const account = privateKeyToAccount(KEY);
// The local signer (the Signer port's adapter) signs the digest: the domain never holds the key.
const signDigest = resolveSigner({ id: 'k', type: 'local', private_key: KEY }, 'evm', {}).signEvmDigest!;
const CHAIN = 11155111;

const cases: Array<{ name: string; prepared: EvmPrepared }> = [
  {
    name: 'a legacy transfer of 1 wei',
    prepared: {
      to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      data: null,
      value: 1n,
      gasLimit: 21000n,
      pricing: { type: 'legacy', gasPrice: 1_000_000_000n },
      speed: null,
      validUntil: null,
    },
  },
  {
    name: 'an EIP-1559 call with data and a u128 value',
    prepared: {
      to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      data: '0xa9059cbb00',
      value: (1n << 128n) - 1n,
      gasLimit: 121_080n,
      pricing: { type: 'eip1559', maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 2_000_000_000n },
      speed: null,
      validUntil: null,
    },
  },
  {
    name: 'an EIP-1559 contract creation',
    prepared: {
      to: null,
      data: '0x6080604052',
      value: 0n,
      gasLimit: 200_000n,
      pricing: { type: 'eip1559', maxFeePerGas: 10n, maxPriorityFeePerGas: 1n },
      speed: null,
      validUntil: null,
    },
  },
];

for (const { name, prepared } of cases) {
  test(`signing ${name} gives viem's exact bytes, recoverable to the signer`, async () => {
    for (const nonce of [0, 1, 7, 123456]) {
      const ours = await signEvm(signDigest, CHAIN, nonce, prepared);
      const common = {
        chainId: CHAIN,
        nonce,
        gas: prepared.gasLimit,
        value: prepared.value,
        ...(prepared.to ? { to: prepared.to } : {}),
        ...(prepared.data ? { data: prepared.data } : {}),
      };
      const tx: TransactionSerializable =
        prepared.pricing.type === 'legacy'
          ? { ...common, type: 'legacy', gasPrice: prepared.pricing.gasPrice }
          : {
              ...common,
              type: 'eip1559',
              maxFeePerGas: prepared.pricing.maxFeePerGas,
              maxPriorityFeePerGas: prepared.pricing.maxPriorityFeePerGas,
            };
      assert.equal(ours.raw, await account.signTransaction(tx));
      assert.equal(await recoverTransactionAddress({ serializedTransaction: ours.raw as never }), account.address);
      const parsed = parseTransaction(ours.raw);
      assert.equal(parsed.r, ours.signature.r);
      assert.equal(parsed.s, ours.signature.s);
      if (prepared.pricing.type === 'legacy') assert.equal(Number(parsed.v), ours.signature.v);
      else assert.equal(parsed.yParity, ours.signature.v);
    }
  });
}
