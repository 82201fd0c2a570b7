// The Solana adapter against a SIMULATED Solana RPC (test/support/solana-rpc.ts): the real SVM (litesvm) executes and
// checks signatures; slots, commitment levels and blockhash expiry are simulated. The adapter is the one that talks to a real RPC.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { getBase64Encoder, getTransactionDecoder, type Address } from '@solana/kit';
import { createSolanaChain } from '../../../src/chains/solana/adapter.ts';
import { verifySignature } from '../../../src/chains/solana/wire.ts';
import { resolveSigner } from '../../../src/signers/local/resolve.ts';
import type { Ed25519Signer } from '../../../src/domain/signers/ports.ts';
import type { SigningApproval, SolanaInstructionSpec } from '../../../src/domain/chains/solana/ports.ts';
import type { AppError } from '../../../src/errors.ts';
import { startSolanaSim } from '../../support/solana-rpc.ts';
import { startSolanaSwallower } from '../../support/swallowing-front.ts';

const sim = await startSolanaSim({ finalizeDepth: 4, blockhashValidBlocks: 10 });
after(() => sim.close());

const SYSTEM = '11111111111111111111111111111111';
const newSigner = (): Ed25519Signer =>
  resolveSigner({ id: 'k', type: 'local', private_key: randomBytes(32).toString('hex') }, 'solana', {}).ed25519!;
const relayer = newSigner();
sim.airdrop(relayer.address, 10_000_000_000n);
const chain = createSolanaChain(
  { type: 'solana', network: 'sim', rpc_urls: [{ url: sim.url, weight: 100 }] },
  { rpc: { retryCount: 0, timeoutMs: 2_000 } },
);

/** A System Program transfer, in the reference's `instructions` form. */
function transfer(from: string, to: string, lamports: bigint, fromSigns = true): SolanaInstructionSpec {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(lamports, 4);
  return {
    program_id: SYSTEM,
    accounts: [
      { pubkey: from, is_signer: fromSigns, is_writable: true },
      { pubkey: to, is_signer: false, is_writable: true },
    ],
    data: data.toString('base64'),
  };
}

// The adapter alone: an approval that lets everything through (the signing gate's checks are tested through the app,
// test/relayers/signing-gate.test.ts); it still proves the adapter hands the approval the transaction before signing.
const approved: string[] = [];
const approve = (async (unsigned) => void approved.push(unsigned.wire)) as SigningApproval;

const messageOf = (wire: string) =>
  getTransactionDecoder().decode(new Uint8Array(getBase64Encoder().encode(wire))).messageBytes;

test('simulated network: an instructions transfer is signed by the relayer, lands, and goes processed → confirmed → finalized', async () => {
  const dest = newSigner().address;
  const signed = await chain.buildAndSign([transfer(relayer.address, dest, 1_000_000n)], relayer, approve);
  assert.equal(signed.feePayer, relayer.address);
  assert.equal(signed.resignable, true);
  assert.equal(signed.fee, 5_000n);
  const tx = getTransactionDecoder().decode(new Uint8Array(getBase64Encoder().encode(signed.transaction)));
  assert.ok(
    verifySignature(relayer.address, tx.messageBytes, tx.signatures[relayer.address as Address]!),
    "the relayer's signature verifies against its address",
  );

  assert.deepEqual(await chain.send(signed.transaction), {
    status: 'submitted',
    signature: signed.signature,
    alreadyProcessed: false,
  });
  const [processed] = await chain.signatureStatuses([signed.signature]);
  assert.equal(processed?.commitment, 'processed');
  assert.equal(processed?.err, null);
  sim.advance(1);
  assert.equal((await chain.signatureStatuses([signed.signature]))[0]?.commitment, 'confirmed');
  sim.advance(4);
  const [finalized] = await chain.signatureStatuses([signed.signature]);
  assert.equal(finalized?.commitment, 'finalized');
  assert.equal(finalized?.confirmations, null);
  assert.equal(await chain.balance(dest), 1_000_000n);
  assert.deepEqual(
    await chain.send(signed.transaction),
    { status: 'submitted', signature: signed.signature, alreadyProcessed: true },
    'a duplicate is AlreadyProcessed, not a refusal',
  );
  assert.deepEqual(
    await chain.signatureStatuses(['1111111111111111111111111111111111111111111111111111111111111111']),
    [null],
  );
});

test('simulated network: a failing instruction is refused in preflight with the program error and logs', async () => {
  const signed = await chain.buildAndSign(
    [transfer(relayer.address, newSigner().address, 10n ** 15n)],
    relayer,
    approve,
  );
  const outcome = await chain.send(signed.transaction);
  assert.equal(outcome.status, 'rejected');
  if (outcome.status !== 'rejected') return;
  assert.equal(outcome.reason, 'program_error');
  assert.deepEqual(
    { ...outcome.error, raw: undefined },
    { kind: 'instruction', index: 0, error: 'Custom', custom: 1, raw: undefined },
  );
  assert.match(outcome.message, /Error processing Instruction 0: custom program error: 0x1/);
  assert.ok(outcome.logs.some((l) => /insufficient lamports/.test(l)));
});

test('simulated network: a transaction that lands and fails on chain reports its instruction error in the status', async () => {
  const signed = await chain.buildAndSign(
    [transfer(relayer.address, newSigner().address, 10n ** 15n)],
    relayer,
    approve,
  );
  // Preflight off, as some clients send: the SVM runs it in a slot, charges the fee and records the error.
  await fetch(sim.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'sendTransaction',
      params: [signed.transaction, { encoding: 'base64', skipPreflight: true }],
    }),
  });
  const [status] = await chain.signatureStatuses([signed.signature]);
  assert.equal(status?.err?.kind, 'instruction');
  assert.equal(status?.err?.kind === 'instruction' && status.err.custom, 1);
});

test('simulated network: an expired blockhash is refused as blockhash_not_found; re-signed with a fresh one it lands', async () => {
  const dest = newSigner().address;
  const signed = await chain.buildAndSign([transfer(relayer.address, dest, 7_000n * 1000n)], relayer, approve);
  sim.expireBlockhashes();
  assert.equal(await chain.isBlockhashValid(signed.blockhash), false);
  const refused = await chain.send(signed.transaction);
  assert.equal(refused.status === 'rejected' && refused.reason, 'blockhash_not_found');
  const fresh = await chain.resign(signed.transaction, relayer, approve);
  assert.notEqual(fresh.blockhash, signed.blockhash);
  assert.notEqual(fresh.signature, signed.signature);
  assert.ok(fresh.lastValidBlockHeight! > signed.lastValidBlockHeight!);
  assert.equal((await chain.send(fresh.transaction)).status, 'submitted');
  assert.equal(await chain.balance(dest), 7_000_000n);
});

test('shape B: the relayer signs a client transaction as fee payer; another fee payer or a missing co-signature is refused', async () => {
  const client = newSigner();
  sim.airdrop(client.address, 1_000_000_000n);
  const base = await chain.buildAndSign([transfer(relayer.address, client.address, 1_000n)], relayer, approve);
  const signed = await chain.signTransaction(base.transaction, relayer, approve);
  assert.equal(signed.blockhash, base.blockhash, 'shape B keeps the blockhash');
  assert.equal(signed.lastValidBlockHeight, null);
  assert.equal(signed.resignable, true);

  const foreign = await chain.buildAndSign([transfer(client.address, relayer.address, 1_000n)], client, approve);
  await assert.rejects(
    chain.signTransaction(foreign.transaction, relayer, approve),
    (err: AppError) =>
      err.reason === `Transaction fee payer ${client.address} does not match relayer address ${relayer.address}`,
  );
});

test('shape B with a co-signer: valid co-signature accepted (not resignable); a missing or forged one refused', async () => {
  const client = newSigner();
  sim.airdrop(client.address, 1_000_000_000n);
  // Build a two-signer message (relayer pays, client transfers) on the network's current blockhash (read fresh: an
  // earlier test expired every blockhash, and building reuses one for a second), then let the client sign it.
  const two = await chain.latestBlockhash();
  const { compileInstructions, parseInstructions } = await import('../../../src/chains/solana/instructions.ts');
  const { signAsFeePayer } = await import('../../../src/chains/solana/wire.ts');
  const specs = [transfer(client.address, relayer.address, 500n)];
  const ixs = parseInstructions(
    specs.map((s) => ({ ...s, accounts: s.accounts.map((a) => ({ ...a, is_signer: false })) })),
    relayer.address,
  );
  const writableSigner = 3;
  (ixs[0]!.accounts as unknown as Array<{ role: number }>)[0]!.role = writableSigner;
  const compiled = compileInstructions(ixs, relayer.address, {
    blockhash: two.blockhash,
    lastValidBlockHeight: two.lastValidBlockHeight!,
  });
  const missing = (await signAsFeePayer(compiled, relayer.address, relayer)).wire;
  await assert.rejects(chain.signTransaction(missing, relayer, approve), (err: AppError) =>
    /needs a signature from .*which the relayer cannot give/.test(err.reason),
  );

  const clientSigned = await signAsFeePayer(compiled, client.address, client);
  const signed = await chain.signTransaction(clientSigned.wire, relayer, approve);
  assert.equal(signed.resignable, false);
  const sent = await chain.send(signed.transaction);
  assert.equal(sent.status, 'submitted', JSON.stringify(sent));
  await assert.rejects(chain.resign(signed.transaction, relayer, approve), (err: AppError) =>
    /cannot be re-signed with a fresh blockhash/.test(err.reason),
  );

  const forged = await signAsFeePayer(compiled, client.address, newSigner());
  await assert.rejects(chain.signTransaction(forged.wire, relayer, approve), (err: AppError) =>
    /does not verify/.test(err.reason),
  );
  assert.ok(
    verifySignature(
      relayer.address,
      messageOf(signed.transaction),
      getTransactionDecoder().decode(new Uint8Array(getBase64Encoder().encode(signed.transaction))).signatures[
        relayer.address as Address
      ]!,
    ),
  );
});

test('the instructions form follows the reference limits and texts', async () => {
  const other = newSigner().address;
  const cases: Array<[SolanaInstructionSpec[], RegExp]> = [
    [[], /^Instructions cannot be empty$/],
    [[{ ...transfer(relayer.address, other, 1n), program_id: ' ' }], /^Instruction 0: program_id cannot be empty$/],
    [
      [transfer(other, relayer.address, 1n)],
      /^Instruction 0 account 0: Only the relayer address \S+ can be marked as a signer, but '\S+' is marked as a signer\. The relayer can only provide its own signature\.$/,
    ],
    [
      [{ ...transfer(relayer.address, other, 1n), program_id: 'not-a-key' }],
      /^Instruction 0: Invalid program_id 'not-a-key'$/,
    ],
    [[{ ...transfer(relayer.address, other, 1n), data: '!!' }], /^Instruction 0: Invalid base64 data$/],
    [
      [{ ...transfer(relayer.address, other, 1n), data: Buffer.alloc(1233).toString('base64') }],
      /^Instruction 0: Data too large \(1233 bytes, max: 1232 bytes\)$/,
    ],
    [
      Array.from({ length: 65 }, () => transfer(relayer.address, other, 1n)),
      /^Too many instructions: 65 exceeds maximum of 64$/,
    ],
  ];
  for (const [specs, text] of cases)
    await assert.rejects(
      chain.buildAndSign(specs, relayer, approve),
      (err: AppError) => text.test(err.reason),
      String(text),
    );
});

test('simulated network: a dead first RPC URL fails over, and its health shows it down', async () => {
  const failover = createSolanaChain(
    {
      type: 'solana',
      network: 'failover',
      rpc_urls: [
        { url: 'http://127.0.0.1:1', weight: 100 },
        { url: sim.url, weight: 100 },
      ],
    },
    { rpc: { retryCount: 0, cooldownMs: 60_000 } },
  );
  const signed = await failover.buildAndSign(
    [transfer(relayer.address, newSigner().address, 1_000_000n)],
    relayer,
    approve,
  );
  const sent = await failover.send(signed.transaction);
  assert.equal(
    sent.status,
    'submitted',
    JSON.stringify(sent, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
  );
  const [dead, live] = failover.health();
  assert.equal(dead?.up, false);
  assert.match(dead?.lastError ?? '', /ECONNREFUSED|fetch failed/);
  assert.equal(live?.up, true);
  const none = createSolanaChain(
    { type: 'solana', network: 'none', rpc_urls: [{ url: 'http://127.0.0.1:1', weight: 100 }] },
    { rpc: { retryCount: 0 } },
  );
  await assert.rejects(
    none.balance(relayer.address),
    (err: AppError) => err.code === 'CHAIN_UNAVAILABLE' && /network 'none': getBalance failed/.test(err.reason),
  );
  assert.equal((await none.send(signed.transaction)).status, 'unavailable');
});

test('simulated network: two identical instruction sets are never the same transaction (the second waits for the next blockhash)', async () => {
  const dest = newSigner().address;
  const first = await chain.buildAndSign([transfer(relayer.address, dest, 1_234n)], relayer, approve);
  const pending = chain.buildAndSign([transfer(relayer.address, dest, 1_234n)], relayer, approve);
  setTimeout(() => sim.advance(1), 100);
  const second = await pending;
  assert.notEqual(second.signature, first.signature, 'two transfers, two transactions');
  assert.notEqual(second.blockhash, first.blockhash);
});

test('simulated network: nothing is signed without the approval, and the approval sees the very transaction to be signed', async () => {
  const dest = newSigner().address;
  const signed: Uint8Array[] = [];
  const watched: Ed25519Signer = { address: relayer.address, sign: async (m) => (signed.push(m), relayer.sign(m)) };
  const refuse = (async () => {
    throw new Error('refused by the test');
  }) as unknown as SigningApproval;
  await assert.rejects(
    chain.buildAndSign([transfer(relayer.address, dest, 1_001n)], watched, refuse),
    /refused by the test/,
  );
  const untyped = chain.buildAndSign as (...args: unknown[]) => Promise<unknown>;
  await assert.rejects(untyped([transfer(relayer.address, dest, 1_002n)], watched), (err: AppError) =>
    /without the signing gate/.test(err.reason),
  );
  assert.equal(signed.length, 0, 'the key was never asked');
  approved.length = 0;
  const ok = await chain.buildAndSign([transfer(relayer.address, dest, 1_003n)], watched, approve);
  assert.equal(approved.length, 1);
  assert.deepEqual(
    messageOf(approved[0]!),
    messageOf(ok.transaction),
    'the approval was given the message that was signed',
  );
});

test('simulated network: a submission goes to every RPC URL at once; a swallowing first URL cannot hold it back, and one whose network never had it is distrusted', async (t) => {
  const front = await startSolanaSwallower(sim.url);
  t.after(() => front.close());
  const both = createSolanaChain(
    {
      type: 'solana',
      network: 'both',
      rpc_urls: [
        { url: front.url, weight: 100 },
        { url: sim.url, weight: 100 },
      ],
    },
    { rpc: { retryCount: 0 } },
  );
  const dest = newSigner().address;
  const signed = await both.buildAndSign([transfer(relayer.address, dest, 1_000_000n)], relayer, approve);
  assert.deepEqual(await both.send(signed.transaction), {
    status: 'submitted',
    signature: signed.signature,
    alreadyProcessed: false,
  });
  assert.equal(front.swallowed, 1, 'the first URL was asked too');
  assert.equal(await chain.balance(dest), 1_000_000n, 'landed through the second URL');
  // Both URLs' network knows it: none is distrusted.
  assert.equal(await both.sendDidNotLand!(signed.signature), 0);
  assert.equal(
    both.health().some((h) => h.broadcastsUp === false),
    false,
  );

  // Both honest and both refusing (an expired blockhash): the refusal is the answer.
  front.swallowing = false;
  const stale = await both.buildAndSign([transfer(relayer.address, dest, 1_000_001n)], relayer, approve);
  sim.expireBlockhashes();
  const refused = await both.send(stale.transaction);
  assert.equal(refused.status, 'rejected');
  assert.equal(refused.status === 'rejected' && refused.reason, 'blockhash_not_found');

  // The swallowing URL alone: what it accepted the network never had, so it is distrusted (reads still go to it).
  front.swallowing = true;
  const alone = createSolanaChain(
    { type: 'solana', network: 'alone', rpc_urls: [{ url: front.url, weight: 100 }] },
    { rpc: { retryCount: 0 } },
  );
  const lost = await alone.buildAndSign([transfer(relayer.address, dest, 1_000_002n)], relayer, approve);
  assert.equal((await alone.send(lost.transaction)).status, 'submitted');
  assert.equal(await alone.sendDidNotLand!(lost.signature), 1);
  const [health] = alone.health();
  assert.equal(health?.up, true);
  assert.equal(health?.broadcastsUp, false);
  assert.match(
    health?.broadcastError ?? '',
    /accepted transaction \w+ as new, but the network never had it past its blockhash's life/,
  );
});
