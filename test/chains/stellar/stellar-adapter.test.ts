// The Stellar adapter against a SIMULATED Stellar RPC (test/support/stellar-rpc.ts): real XDR parsing, hashing and
// signature checks (stellar-base); accounts, ledgers and operation effects are simulated. The adapter is the one that talks to a real RPC.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-base';
import { createStellarChain } from '../../../src/chains/stellar/adapter.ts';
import { toMemo, toOperation } from '../../../src/chains/stellar/build.ts';
import { describeFailure } from '../../../src/chains/stellar/results.ts';
import { resolveSigner } from '../../../src/signers/local/resolve.ts';
import type { Ed25519Signer } from '../../../src/domain/signers/ports.ts';
import type { StellarOperationSpec, StellarSigningApproval } from '../../../src/domain/chains/stellar/ports.ts';
import type { AppError } from '../../../src/errors.ts';
import { startStellarSim } from '../../support/stellar-rpc.ts';
import { startStellarSwallower } from '../../support/swallowing-front.ts';

const sim = await startStellarSim();
after(() => sim.close());

const XLM = 10_000_000n;
const MAX_FEE = 1_000_000n;
const newSigner = (): Ed25519Signer =>
  resolveSigner({ id: 'k', type: 'local', private_key: Keypair.random().secret() }, 'stellar', {}).ed25519!;
const network = (urls: string[], passphrase = sim.passphrase) => ({
  type: 'stellar' as const,
  network: 'sim',
  passphrase,
  rpc_urls: urls.map((url) => ({ url, weight: 100 })),
});
// The adapter alone: an approval that lets everything through (the signing gate's checks are tested through the app,
// test/relayers/signing-gate-stellar.test.ts).
const approve = (async () => undefined) as unknown as StellarSigningApproval;
const chain = createStellarChain(network([sim.url]), { rpc: { retryCount: 0, timeoutMs: 2_000 } });
const pay = (destination: string, amount: bigint): StellarOperationSpec => ({
  type: 'payment',
  destination,
  amount: amount.toString(),
  asset: { type: 'native' },
});

function funded(stroops = 1_000n * XLM): Ed25519Signer {
  const s = newSigner();
  sim.fund(s.address, stroops);
  return s;
}

/** A client's own transaction (the official builder), signed by the client unless told. */
async function clientTx(client: Keypair, op: xdr.Operation, sign = true): Promise<string> {
  const acc = await chain.account(client.publicKey());
  const tx = new TransactionBuilder(new Account(client.publicKey(), acc!.sequence.toString()), {
    fee: '100',
    networkPassphrase: sim.passphrase,
  })
    .addOperation(op)
    .setTimeout(300)
    .build();
  if (sign) tx.sign(client);
  return tx.toXDR();
}

test('simulated network: operations are built, signed by the relayer, submitted (PENDING), then SUCCESS once the ledger closes', async () => {
  const relayer = funded();
  const dest = Keypair.random().publicKey();
  await chain.checkNetwork();
  const signed = await chain.buildAndSign(
    {
      operations: [
        { type: 'create_account', destination: dest, starting_balance: (5n * XLM).toString() },
        pay(dest, 2n * XLM),
      ],
      memo: { type: 'text', value: 'relaybox' },
      maxFee: MAX_FEE,
    },
    relayer,
    approve,
  );
  const tx = TransactionBuilder.fromXDR(signed.envelopeXdr, sim.passphrase);
  assert.ok(
    Keypair.fromPublicKey(relayer.address).verify(tx.hash(), tx.signatures[0]!.signature()),
    "the signature verifies against the relayer's address",
  );
  assert.equal(signed.hash, tx.hash().toString('hex'));
  assert.equal(signed.sequence, (await chain.account(relayer.address))!.sequence + 1n, 'sequence from the network');
  assert.equal(signed.fee, 200n, 'minimum fee per operation (the network asks no more)');
  assert.ok(signed.validUntil && signed.validUntil.getTime() > Date.now(), 'time bounds: the default two minutes');

  const sent = await chain.submit(signed.envelopeXdr);
  assert.equal(sent.status, 'PENDING');
  assert.equal((await chain.submit(signed.envelopeXdr)).status, 'DUPLICATE');
  assert.equal((await chain.transaction(signed.hash)).status, 'NOT_FOUND');
  sim.closeLedger();
  const done = await chain.transaction(signed.hash);
  assert.equal(done.status, 'SUCCESS');
  assert.equal(done.status === 'SUCCESS' && done.feeCharged, 200n);
  const destAccount = await chain.account(dest);
  assert.equal(destAccount?.balance, 7n * XLM);
});

test('simulated network: an operation failing on chain is FAILED with tx_failed and the op code; fee and sequence are still charged', async () => {
  const relayer = funded();
  const before = (await chain.account(relayer.address))!;
  const signed = await chain.buildAndSign(
    { operations: [pay(Keypair.random().publicKey(), XLM)], maxFee: MAX_FEE },
    relayer,
    approve,
  );
  assert.equal((await chain.submit(signed.envelopeXdr)).status, 'PENDING');
  sim.closeLedger();
  const failed = await chain.transaction(signed.hash);
  assert.equal(failed.status, 'FAILED');
  if (failed.status !== 'FAILED') return;
  assert.deepEqual(failed.result, { code: 'tx_failed', innerCode: null, opCodes: ['op_no_destination'] });
  assert.equal(describeFailure(failed.result), 'Transaction failed on-chain. reason=tx_failed op=op_no_destination');
  const after = (await chain.account(relayer.address))!;
  assert.equal(after.sequence, before.sequence + 1n);
  assert.equal(after.balance, before.balance - 100n);
});

test('simulated network: a stale sequence is ERROR tx_bad_seq; rebuilt with the sequence read again from the network it succeeds', async () => {
  const relayer = funded();
  const dest = funded().address;
  const current = (await chain.account(relayer.address))!.sequence;
  const stale = await chain.buildAndSign(
    { operations: [pay(dest, XLM)], maxFee: MAX_FEE, sequence: current + 5n },
    relayer,
    approve,
  );
  const refused = await chain.submit(stale.envelopeXdr);
  assert.equal(refused.status, 'ERROR');
  assert.deepEqual(refused.status === 'ERROR' && refused.result, { code: 'tx_bad_seq', innerCode: null, opCodes: [] });
  const resynced = await chain.buildAndSign({ operations: [pay(dest, XLM)], maxFee: MAX_FEE }, relayer, approve);
  assert.equal(resynced.sequence, current + 1n);
  assert.equal((await chain.submit(resynced.envelopeXdr)).status, 'PENDING');
  sim.closeLedger();
  assert.equal((await chain.transaction(resynced.hash)).status, 'SUCCESS');
});

test('simulated network: one pending transaction per source account, and TRY_AGAIN_LATER on demand', async () => {
  const relayer = funded();
  const dest = funded().address;
  const first = await chain.buildAndSign({ operations: [pay(dest, XLM)], maxFee: MAX_FEE }, relayer, approve);
  const second = await chain.buildAndSign(
    { operations: [pay(dest, XLM)], maxFee: MAX_FEE, sequence: first.sequence + 1n },
    relayer,
    approve,
  );
  sim.tryAgainLater(1);
  assert.equal((await chain.submit(first.envelopeXdr)).status, 'TRY_AGAIN_LATER');
  assert.equal((await chain.submit(first.envelopeXdr)).status, 'PENDING');
  assert.equal(
    (await chain.submit(second.envelopeXdr)).status,
    'TRY_AGAIN_LATER',
    'stellar-core 19+ queues one transaction per account',
  );
  sim.closeLedger();
  assert.equal((await chain.submit(second.envelopeXdr)).status, 'PENDING');
});

test("simulated network: a client's signed transaction is wrapped in a fee bump paid by the relayer, within max_fee", async () => {
  const relayer = funded();
  const client = Keypair.random();
  sim.fund(client.publicKey(), 10n * XLM);
  const dest = funded().address;
  const signedXdr = await clientTx(
    client,
    Operation.payment({ destination: dest, asset: Asset.native(), amount: '1' }),
  );
  await assert.rejects(
    chain.feeBump(signedXdr, relayer, { maxFee: 150n }, approve),
    (err: AppError) => err.reason === 'max_fee (150) is insufficient. Required fee-bump fee: 200',
  );
  await assert.rejects(
    chain.feeBump(
      await clientTx(client, Operation.payment({ destination: dest, asset: Asset.native(), amount: '1' }), false),
      relayer,
      { maxFee: MAX_FEE },
      approve,
    ),
    (err: AppError) => err.reason === "'fee_bump' requires a signed 'transaction_xdr'",
  );
  const bump = await chain.feeBump(signedXdr, relayer, { maxFee: MAX_FEE }, approve);
  assert.equal(bump.feeBump, true);
  assert.equal(bump.source, client.publicKey());
  const relayerBefore = (await chain.account(relayer.address))!.balance;
  assert.equal((await chain.submit(bump.envelopeXdr)).status, 'PENDING');
  sim.closeLedger();
  const done = await chain.transaction(bump.hash);
  assert.equal(done.status, 'SUCCESS');
  assert.equal((await chain.account(relayer.address))!.balance, relayerBefore - 200n, 'the relayer paid the fee');
  assert.equal((await chain.account(client.publicKey()))!.balance, 9n * XLM, 'the client paid only its payment');
});

test("simulated network: an unsigned transaction_xdr gets the relayer's sequence and signature; a fee below the network's is ERROR tx_insufficient_fee", async () => {
  const relayer = funded();
  const dest = funded().address;
  const op = Operation.payment({ destination: dest, asset: Asset.native(), amount: '1' });
  const unsigned = new TransactionBuilder(new Account(relayer.address, '0'), {
    fee: '10',
    networkPassphrase: sim.passphrase,
  })
    .addOperation(op)
    .setTimeout(300)
    .build()
    .toXDR();
  const signed = await chain.signXdr(unsigned, relayer, { maxFee: MAX_FEE }, approve);
  assert.equal(signed.sequence, (await chain.account(relayer.address))!.sequence + 1n);
  assert.equal(signed.fee, 100n, 'raised to the minimum');
  assert.equal((await chain.submit(signed.envelopeXdr)).status, 'PENDING');
  sim.closeLedger();
  assert.equal((await chain.transaction(signed.hash)).status, 'SUCCESS');

  const other = Keypair.random();
  const foreign = new TransactionBuilder(new Account(other.publicKey(), '0'), {
    fee: '100',
    networkPassphrase: sim.passphrase,
  })
    .addOperation(op)
    .setTimeout(300)
    .build();
  await assert.rejects(chain.signXdr(foreign.toXDR(), relayer, { maxFee: MAX_FEE }, approve), (err: AppError) =>
    /transaction source account .* does not match the relayer's address/.test(err.reason),
  );
  foreign.sign(other);
  await assert.rejects(chain.signXdr(foreign.toXDR(), relayer, { maxFee: MAX_FEE }, approve), (err: AppError) =>
    /is signed: send it with fee_bump: true/.test(err.reason),
  );

  const pricey = await startStellarSim({ baseFee: 1_000n, passphrase: sim.passphrase });
  try {
    const expensive = createStellarChain(network([pricey.url]), { rpc: { retryCount: 0 } });
    pricey.fund(relayer.address, 100n * XLM);
    const cheap = await chain.signXdr(
      unsigned,
      relayer,
      { maxFee: MAX_FEE, sequence: (await expensive.account(relayer.address))!.sequence + 1n },
      approve,
    );
    const refused = await expensive.submit(cheap.envelopeXdr);
    assert.deepEqual(refused.status === 'ERROR' && refused.result.code, 'tx_insufficient_fee');
    const priced = await expensive.buildAndSign({ operations: [pay(dest, XLM)], maxFee: MAX_FEE }, relayer, approve);
    assert.equal(priced.fee, 1_000n, "the network's fee statistics price the bid");
    await assert.rejects(
      expensive.buildAndSign({ operations: [pay(dest, XLM)], maxFee: 99n }, relayer, approve),
      (err: AppError) => err.reason === 'max_fee (99) is insufficient. Required transaction fee: 100',
    );
  } finally {
    await pricey.close();
  }
});

test('operations and memos follow the rules: change_trust opens a trustline, invoke_contract encodes its arguments, memo limits', async () => {
  const relayer = funded();
  const issuer = funded().address;
  const asset = { type: 'credit_alphanum4' as const, code: 'USDC', issuer };
  const trust = await chain.buildAndSign(
    { operations: [{ type: 'change_trust', asset, limit: (1000n * XLM).toString() }], maxFee: MAX_FEE },
    relayer,
    approve,
  );
  await chain.submit(trust.envelopeXdr);
  sim.closeLedger();
  assert.equal((await chain.transaction(trust.hash)).status, 'SUCCESS');
  assert.deepEqual((await chain.account(relayer.address, [asset]))?.balances, [
    { asset, balance: 0n, limit: 1000n * XLM },
  ]);

  const contract = 'CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE';
  const op = toOperation(
    {
      type: 'invoke_contract',
      contract_address: contract,
      function_name: 'transfer',
      args: [
        { address: relayer.address },
        { i128: { hi: 0, lo: '5' } },
        { u64: '7' },
        { symbol: 'x' },
        { vec: [{ bool: true }] },
      ],
    },
    0,
  );
  const invoke = op.body().invokeHostFunctionOp().hostFunction().invokeContract();
  assert.equal(invoke.functionName().toString(), 'transfer');
  assert.deepEqual(
    invoke.args().map((a) => a.switch().name),
    ['scvAddress', 'scvI128', 'scvU64', 'scvSymbol', 'scvVec'],
  );
  assert.equal(op.body().invokeHostFunctionOp().auth().length, 1, 'source-account auth by default, as the reference');
  assert.throws(
    () =>
      toOperation({ type: 'invoke_contract', contract_address: contract, function_name: 'f', args: [{ float: 1 }] }, 2),
    (err: AppError) => /'operations.2.args.0': unsupported argument type 'float'/.test(err.reason),
  );
  // No Soroban VM runs in the simulation: its simulateTransaction error reaches the caller as the reason.
  await assert.rejects(
    chain.buildAndSign(
      {
        operations: [{ type: 'invoke_contract', contract_address: contract, function_name: 'f', args: [] }],
        maxFee: MAX_FEE,
      },
      relayer,
      approve,
    ),
    (err: AppError) => /the contract call fails in simulation: .*no Soroban VM/.test(err.reason),
  );

  assert.throws(
    () => toMemo({ type: 'text', value: 'x'.repeat(29) }),
    (err: AppError) => /at most 28 bytes/.test(err.reason),
  );
  assert.equal(toMemo({ type: 'text', value: 'é'.repeat(14) }).value?.toString(), 'é'.repeat(14));
  assert.throws(
    () => toMemo({ type: 'hash', value: [1, 2, 3] }),
    (err: AppError) => /must be 32 bytes/.test(err.reason),
  );
  assert.equal(toMemo({ type: 'return', value: 'ab'.repeat(32) }).type, 'return');
  assert.equal(toMemo({ type: 'id', value: '18446744073709551615' }).value, '18446744073709551615');
  await assert.rejects(
    chain.buildAndSign({ operations: [pay(issuer, 1n)], source_account: issuer, maxFee: MAX_FEE }, relayer, approve),
    (err: AppError) => /'source_account' .* does not match the relayer's address/.test(err.reason),
  );
});

test('simulated network: a dead first RPC URL fails over; a wrong passphrase is refused before any submit', async () => {
  const relayer = funded();
  const failover = createStellarChain(network(['http://127.0.0.1:1', sim.url]), {
    rpc: { retryCount: 0, cooldownMs: 60_000 },
  });
  const signed = await failover.buildAndSign(
    { operations: [pay(funded().address, XLM)], maxFee: MAX_FEE },
    relayer,
    approve,
  );
  assert.equal((await failover.submit(signed.envelopeXdr)).status, 'PENDING');
  const [dead, live] = failover.health();
  assert.equal(dead?.up, false);
  assert.equal(live?.up, true);

  const wrong = createStellarChain(network([sim.url], 'Test SDF Network ; September 2015'), { rpc: { retryCount: 0 } });
  await assert.rejects(wrong.checkNetwork(), (err: AppError) =>
    /configured with passphrase 'Test SDF Network ; September 2015', but its RPC answers/.test(err.reason),
  );
  const outcome = await wrong.submit(signed.envelopeXdr);
  assert.equal(outcome.status, 'unavailable');
});

test('simulated network: a submission goes to every RPC URL at once; a swallowing first URL cannot hold it back, and one whose network never had it is distrusted', async (t) => {
  const front = await startStellarSwallower(sim.url, sim.passphrase);
  t.after(() => front.close());
  const both = createStellarChain(network([front.url, sim.url]), { rpc: { retryCount: 0 } });
  const relayer = funded();
  const dest = funded().address;
  const signed = await both.buildAndSign({ operations: [pay(dest, XLM)], maxFee: MAX_FEE }, relayer, approve);
  assert.equal((await both.submit(signed.envelopeXdr)).status, 'PENDING');
  assert.equal(front.swallowed, 1, 'the first URL was asked too');
  sim.closeLedger();
  assert.equal((await both.transaction(signed.hash)).status, 'SUCCESS', 'landed through the second URL');
  assert.equal(await both.submitDidNotLand!(signed.hash), 0, 'the network has it: nobody is distrusted');

  // Both honest: one queues it, the other finds it queued (DUPLICATE): accepted. Both refusing: the refusal.
  front.swallowing = false;
  const next = await both.buildAndSign({ operations: [pay(dest, XLM)], maxFee: MAX_FEE }, relayer, approve);
  assert.equal((await both.submit(next.envelopeXdr)).status, 'PENDING');
  sim.closeLedger();
  const stale = await both.buildAndSign(
    { operations: [pay(dest, XLM)], maxFee: MAX_FEE, sequence: next.sequence + 5n },
    relayer,
    approve,
  );
  const refused = await both.submit(stale.envelopeXdr);
  assert.equal(refused.status === 'ERROR' && refused.result.code, 'tx_bad_seq');

  // The swallowing URL alone: what it accepted the network never had, so it is distrusted (reads still go to it).
  front.swallowing = true;
  const alone = createStellarChain(network([front.url]), { rpc: { retryCount: 0 } });
  const lost = await alone.buildAndSign({ operations: [pay(dest, XLM)], maxFee: MAX_FEE }, relayer, approve);
  assert.equal((await alone.submit(lost.envelopeXdr)).status, 'PENDING');
  assert.equal(await alone.submitDidNotLand!(lost.hash), 1);
  const [health] = alone.health();
  assert.equal(health?.up, true);
  assert.equal(health?.broadcastsUp, false);
  assert.match(
    health?.broadcastError ?? '',
    /accepted transaction [0-9a-f]{64} as pending, but the network never had it past its time bounds/,
  );
});
