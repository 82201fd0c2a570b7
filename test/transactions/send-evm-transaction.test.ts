import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keccak256, parseTransaction, recoverTransactionAddress, type TransactionSerialized } from 'viem';
import {
  buildWithRelayers,
  CHAIN_ID,
  EVM_ADDRESS,
  EVM_KEY_2,
  evmBody,
  fundWithoutLimit,
  IN_FLIGHT,
  TO,
  txPath,
} from './fixtures.ts';
import { privateKeyToAccount } from 'viem/accounts';

test("an EIP-1559 send is signed for real by the relayer key, given the chain's nonce and recorded as sent", async (t) => {
  const s = await buildWithRelayers(t);
  const res = await s.request('POST', txPath('evm'), { body: evmBody({ data: '0xdeadbeef' }) });
  assert.equal(res.status, 200);
  const tx = res.body.data;
  assert.equal(res.body.success, true);
  assert.equal(res.body.error, null);
  assert.equal(tx.status, 'sent');
  assert.equal(tx.relayer_id, 'evm');
  assert.equal(tx.from, EVM_ADDRESS);
  assert.equal(tx.to, TO);
  assert.equal(tx.value, '1');
  assert.equal(tx.max_fee_per_gas, '20000000000');
  assert.equal(tx.max_priority_fee_per_gas, '1000000000');
  assert.equal(tx.gas_price, null);
  assert.equal(tx.nonce, 0);
  // Estimated by the chain (21,000 + calldata, more on a node that pads), with a 10% margin for calls.
  assert.ok(tx.gas_limit >= Math.ceil((21_000 + 16 * 4) * 1.1) && tx.gas_limit < 30_000, String(tx.gas_limit));
  assert.deepEqual(tx.hashes, [tx.hash]);
  assert.equal(tx.hash, keccak256(tx.raw));
  const parsed = parseTransaction(tx.raw as TransactionSerialized);
  assert.equal(parsed.type, 'eip1559');
  assert.equal(parsed.chainId, CHAIN_ID);
  assert.equal(parsed.nonce, 0);
  assert.equal(parsed.data, '0xdeadbeef');
  assert.equal(await recoverTransactionAddress({ serializedTransaction: tx.raw }), EVM_ADDRESS);
  assert.equal(tx.signature.r, parsed.r);
  assert.equal(tx.signature.s, parsed.s);
  assert.equal(tx.signature.v, parsed.yParity);
  assert.match(tx.signature.sig, /^0x[0-9a-f]{130}$/);

  const again = await s.request('GET', txPath('evm', tx.id));
  assert.deepEqual({ ...again.body.data, status: 'sent', sent_at: null }, tx, 'read back as written (broadcast since)');
  assert.ok(IN_FLIGHT.includes(again.body.data.status));
});

test('a legacy send carries EIP-155 replay protection and a default gas limit of 21000', async (t) => {
  const s = await buildWithRelayers(t);
  const res = await s.request('POST', txPath('evm'), { body: { value: 5, to: TO, gas_price: 3_000_000_000 } });
  assert.equal(res.status, 200);
  const tx = res.body.data;
  const parsed = parseTransaction(tx.raw);
  assert.equal(parsed.type, 'legacy');
  assert.equal(parsed.chainId, CHAIN_ID);
  assert.equal(parsed.gasPrice, 3_000_000_000n);
  assert.equal(tx.gas_price, '3000000000');
  assert.equal(tx.gas_limit, 21000);
  assert.equal(tx.signature.v, CHAIN_ID * 2 + 35 + Number(parsed.yParity ?? Number(parsed.v) - 35 - CHAIN_ID * 2));
  assert.equal(await recoverTransactionAddress({ serializedTransaction: tx.raw }), EVM_ADDRESS);
});

test('a signer key named by private_key_env signs, and its nonces start at initial_nonce', async (t) => {
  const s = await buildWithRelayers(t);
  const relayer = await s.request('GET', '/api/v1/relayers/evm-env');
  const expected = privateKeyToAccount(EVM_KEY_2 as `0x${string}`).address;
  assert.equal(relayer.body.data.address, expected);
  const res = await s.request('POST', txPath('evm-env'), { body: evmBody() });
  assert.equal(res.body.data.nonce, 7);
  assert.equal(await recoverTransactionAddress({ serializedTransaction: res.body.data.raw }), expected);
});

test('speed is priced from the chain: EIP-1559 on an eip1559 network, legacy gas price otherwise', async (t) => {
  const s = await buildWithRelayers(t);
  const eip = await s.request('POST', txPath('evm'), { body: { value: 0, to: TO, speed: 'fast' } });
  assert.equal(eip.status, 200, eip.text);
  const fees = await s.app.chains.evm('sepolia').fees();
  assert.equal(fees.type, 'eip1559');
  if (fees.type !== 'eip1559') return;
  // A fresh devnet: 1 gwei base fee, no tips in history, so the node's 1 gwei tip scaled for 'fast' (150%).
  assert.equal(fees.speeds.fast.maxPriorityFeePerGas, 1_500_000_000n);
  assert.equal(eip.body.data.speed, 'fast');
  assert.equal(eip.body.data.max_fee_per_gas, String(fees.speeds.fast.maxFeePerGas));
  assert.equal(eip.body.data.max_priority_fee_per_gas, String(fees.speeds.fast.maxPriorityFeePerGas));
  assert.equal(eip.body.data.max_fee_per_gas, String(2n * fees.baseFeePerGas + 1_500_000_000n));

  const legacy = await s.request('POST', txPath('evm-legacy'), { body: { value: 0, to: TO, speed: 'safeLow' } });
  const legacyFees = await s.app.chains.evm('legacy-chain').fees();
  assert.equal(legacyFees.type, 'legacy');
  if (legacyFees.type !== 'legacy') return;
  assert.equal(legacy.body.data.gas_price, String(legacyFees.speeds.safeLow.gasPrice));
  assert.ok(legacyFees.speeds.safeLow.gasPrice > 0n);
  assert.equal(legacy.body.data.max_fee_per_gas, null);
  assert.equal(parseTransaction(legacy.body.data.raw).chainId, 31337);
});

test('a value above 2^53 sent as a JSON number or a string round-trips exactly and is signed exactly', async (t) => {
  const s = await buildWithRelayers(t);
  // Enough for the amounts below: anvil sets the relayer's balance.
  await fundWithoutLimit(s);
  const raw = `{"value": 1000000000000000000001, "to": "${TO}", "gas_price": 1000000000000000000001}`;
  const asNumber = await s.request('POST', txPath('evm'), {
    rawBody: raw,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(asNumber.status, 200, asNumber.text);
  assert.match(asNumber.text, /"value":"1000000000000000000001"/);
  assert.equal(asNumber.body.data.gas_price, '1000000000000000000001');
  assert.equal(parseTransaction(asNumber.body.data.raw).value, 1000000000000000000001n);

  const asString = await s.request('POST', txPath('evm'), {
    body: evmBody({ value: '1000000000000000000001', gas_limit: '9007199254740993' }),
  });
  assert.equal(asString.status, 200, asString.text);
  assert.equal(asString.body.data.value, '1000000000000000000001');
  assert.equal(asString.body.data.gas_limit, '9007199254740993');
  assert.equal(parseTransaction(asString.body.data.raw).gas, 9007199254740993n);
});

test('integers that are negative, fractional or out of range are refused naming the field', async (t) => {
  const s = await buildWithRelayers(t);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [evmBody({ value: -1 }), /'value' must be a non-negative integer \(u128\)/],
    [evmBody({ value: 1.5 }), /'value'/],
    [evmBody({ value: '1e3' }), /'value'/],
    [evmBody({ value: (1n << 128n).toString() }), /'value' must be a non-negative integer \(u128\)/],
    [evmBody({ gas_limit: (1n << 63n).toString() }), /'gas_limit' must be a non-negative integer \(int64\)/],
    [evmBody({ gas_limit: -5 }), /'gas_limit'/],
    [evmBody({ max_fee_per_gas: -1 }), /'max_fee_per_gas'/],
  ];
  for (const [body, reason] of cases) {
    const res = await s.request('POST', txPath('evm'), { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.message, 'Bad Request');
    assert.match(res.body.error, reason);
  }
  const rawNegative = await s.request('POST', txPath('evm'), {
    rawBody: `{"value": -1000000000000000000001, "to": "${TO}", "gas_price": 1}`,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(rawNegative.status, 400);
  assert.match(rawNegative.body.error, /'value'/);
});

test('shape A rules: to or data, exactly one pricing mode, max fee >= priority fee, valid_until in the future', async (t) => {
  const s = await buildWithRelayers(t);
  const future = new Date(Date.now() + 3600_000).toISOString();
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ value: 1, gas_price: 1 }, /at least one of 'to' and 'data'/],
    [{ value: 1, to: TO }, /one pricing mode is required/],
    [{ value: 1, to: TO, gas_price: 1, speed: 'fast' }, /exactly one pricing mode.*gas_price and speed/],
    [{ value: 1, to: TO, speed: 'fast', max_fee_per_gas: 2, max_priority_fee_per_gas: 1 }, /exactly one pricing mode/],
    [{ value: 1, to: TO, max_fee_per_gas: 2 }, /'max_priority_fee_per_gas' is required/],
    [{ value: 1, to: TO, max_priority_fee_per_gas: 2 }, /'max_fee_per_gas' is required/],
    [
      { value: 1, to: TO, max_fee_per_gas: 1, max_priority_fee_per_gas: 2 },
      /'max_fee_per_gas' \(1\) must be greater than or equal to 'max_priority_fee_per_gas' \(2\)/,
    ],
    [{ value: 1, to: TO, gas_price: 1, valid_until: '2020-01-01T00:00:00Z' }, /'valid_until' must be in the future/],
    [{ value: 1, to: TO, gas_price: 1, valid_until: 'tomorrow' }, /'valid_until' must match format "date-time"/],
    [{ value: 1, to: TO, gas_price: 1, speed: 'slow' }, /'speed' must be one of: fastest, fast, average, safeLow/],
    [{ value: 1, to: '0x1234', gas_price: 1 }, /'to' must match pattern/],
    // A wrong EIP-55 checksum is accepted, as the reference accepts it (test/compat/reference-differences.test.ts).
    [{ value: 1, data: '0xabc', gas_price: 1 }, /'data' must match pattern/],
    [{ to: TO, gas_price: 1 }, /missing required field 'value'/],
    [{ value: 1, to: TO, gas_price: 1, nonce: 3 }, /unknown field 'nonce'/],
  ];
  for (const [body, reason] of cases) {
    const res = await s.request('POST', txPath('evm'), { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.success, false);
    assert.equal(res.body.data, null);
    assert.match(res.body.error, reason, JSON.stringify(body));
  }
  const ok = await s.request('POST', txPath('evm'), {
    body: { value: 1, data: '0x', gas_price: 1, valid_until: future },
  });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.data.to, null);
  assert.ok(ok.body.data.gas_limit >= 53_000, 'a creation is estimated by the chain (53,000 and up)');
  assert.equal(ok.body.data.valid_until, future);
});

test('a body of another relayer shape, or no body, is refused with the shape the relayer needs', async (t) => {
  const s = await buildWithRelayers(t);
  const solanaShape = await s.request('POST', txPath('evm'), { body: { transaction: 'AAAA' } });
  assert.equal(solanaShape.status, 400);
  assert.match(solanaShape.body.error, /is evm and takes request shape A .*shape B, for solana relayers/);
  const none = await s.request('POST', txPath('evm'));
  assert.equal(none.status, 400);
  assert.match(none.body.error, /JSON request body is required/);
  const array = await s.request('POST', txPath('evm'), { body: [1] });
  assert.equal(array.status, 400);
  assert.match(array.body.error, /'body' must be object/);
});

test('send, get and list of an unknown relayer answer 404 naming it', async (t) => {
  const s = await buildWithRelayers(t);
  for (const [method, path] of [
    ['POST', txPath('ghost')],
    ['GET', txPath('ghost', 'x')],
    ['DELETE', txPath('ghost', 'x')],
  ] as const) {
    const res = await s.request(method, path, { body: method === 'POST' ? evmBody() : undefined });
    assert.equal(res.status, 404, path);
    assert.equal(res.body.message, 'Relayer with ID ghost not found');
  }
  const unknownTx = await s.request('GET', txPath('evm', 'no-such-tx'));
  assert.equal(unknownTx.status, 404);
  assert.equal(unknownTx.body.message, 'Not found');
});
