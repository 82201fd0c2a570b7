// Fees paid in SPL tokens (fee_payment_strategy "user"), through the real HTTP server, SQLite and the relayer's `rpc`
// route, against a SIMULATED Solana network (test/support/solana-rpc.ts: the real SVM in litesvm runs the SPL Token
// and Associated Token programs, signatures checked) and a SIMULATED Jupiter quote API (test/support/jupiter-api.ts:
// fixed prices, its documented shapes). A user holding only a USDC-like token and no SOL gets a quote, prepares,
// signs and sends; the relayer ends up with the fee in tokens and pays the chain in SOL; short payments, tokens not
// allowed and instructions that touch the relayer's funds are refused before the relayer signs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTransferCheckedInstruction } from '@solana-program/token';
import { build, type TestServer } from '../../helper.ts';
import { startSolanaSim, type SolanaSim } from '../../support/solana-rpc.ts';
import { startJupiterSim, type JupiterSim } from '../../support/jupiter-api.ts';
import { resolveSigner } from '../../../src/signers/local/resolve.ts';
import { faultySigners } from '../../support/signer-faults.ts';
import { eventually } from '../../support/eventually.ts';

const RELAYER_SEED = randomBytes(32).toString('hex');
const RELAYER = resolveSigner({ id: 'x', type: 'local', private_key: RELAYER_SEED }, 'solana', {}).address;
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const FEE = { perSignature: 5_000n, rent: 2_039_280n };

let sol: SolanaSim;
let jup: JupiterSim;
let usdc: string;
let other: string;
let user: KeyPairSigner;
let s: TestServer;
/** The real signer adapters, counting signatures: a refusal must come before any. */
let signer: ReturnType<typeof faultySigners>;

before(async () => {
  sol = await startSolanaSim({ finalizeDepth: 2 });
  jup = await startJupiterSim(sol);
  [usdc, other, user] = await Promise.all([sol.createMint(6), sol.createMint(9), generateKeyPairSigner()]);
  jup.setPrice(usdc, 150_000_000n, 6); // 150 tokens per SOL
  sol.airdrop(RELAYER, 10_000_000_000n);
  await sol.fundTokens(user.address, usdc, 100_000_000n); // 100 tokens, and no SOL at all
  await sol.fundTokens(user.address, other, 5_000_000_000n);
  const policies = {
    fee_payment_strategy: 'user',
    fee_margin_percentage: 10,
    min_balance: 0,
    allowed_tokens: [
      { mint: usdc, decimals: 6, symbol: 'USDC', max_allowed_fee: 5_000_000, swap_config: { slippage_percentage: 1 } },
    ],
  };
  signer = faultySigners();
  s = await build(undefined, {
    resolveSigner: signer.resolveSigner,
    env: { JUPITER_API_URL: jup.url, LOG_LEVEL: 'warn' },
    config: {
      networks: [{ type: 'solana', network: 'solana-sim', rpc_urls: [{ url: sol.url, weight: 100 }] }],
      signers: [{ id: 'key', type: 'local', private_key: RELAYER_SEED }],
      relayers: [
        { id: 'gasless', name: 'Users pay in tokens', network: 'solana-sim', signer_id: 'key', policies },
        {
          id: 'sponsor',
          name: 'Relayer pays',
          network: 'solana-sim',
          signer_id: 'key',
          policies: { fee_payment_strategy: 'relayer' },
        },
        {
          id: 'strict',
          name: 'Relayer pays, System Program only',
          network: 'solana-sim',
          signer_id: 'key',
          policies: {
            fee_payment_strategy: 'relayer',
            allowed_programs: ['11111111111111111111111111111111'],
            min_balance: 0,
          },
        },
        {
          id: 'unset',
          name: 'No fee_payment_strategy: users pay (the default)',
          network: 'solana-sim',
          signer_id: 'key',
          policies: { min_balance: 0 },
        },
      ],
      notifications: [],
    } as never,
  });
});
after(async () => {
  await s?.close();
  await Promise.all([jup?.close(), sol?.close()]);
});

const rpc = async (method: string, params: unknown, relayer = 'gasless') =>
  (await s.request('POST', `/api/v1/relayers/${relayer}/rpc`, { body: { jsonrpc: '2.0', id: 1, method, params } }))
    .body;
const ata = async (owner: string, mint: string) =>
  (
    await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS })
  )[0];

/** A transaction of `instructions` paid by `feePayer` (any blockhash: prepareTransaction takes a fresh one). */
function wire(
  feePayer: string,
  instructions: Instruction[],
  hash = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k',
): string {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(hash), lastValidBlockHeight: 1_000n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

/** The user's signature added to a transaction the relayer prepared. */
async function userSigns(prepared: string): Promise<string> {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(prepared));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([user.keyPair], tx));
}

async function tokenTransfer(
  to: string,
  amount: bigint,
  mint = usdc,
  decimals = 6,
  from = user.address,
): Promise<Instruction> {
  return getTransferCheckedInstruction({
    source: await ata(from, mint),
    mint: address(mint),
    destination: await ata(to, mint),
    authority: createNoopSigner(address(from)),
    amount,
    decimals,
  });
}

async function waitLanded(id: string): Promise<Record<string, unknown>> {
  const read = async () =>
    (await s.request('GET', `/api/v1/relayers/gasless/transactions/${id}`)).body.data as Record<string, unknown>;
  const record = await eventually(async () => {
    const r = await read();
    return ['submitted', 'mined', 'confirmed', 'failed'].includes(r.status as string) ? r : undefined;
  });
  if (!record) throw new Error(`transaction ${id} never left pending: ${JSON.stringify(await read())}`);
  return record;
}

test('getSupportedTokens lists the allowed tokens; getFeaturesEnabled answers gasless; each result names its method', async () => {
  assert.deepEqual((await rpc('getSupportedTokens', {})).result, {
    method: 'getSupportedTokens',
    tokens: [
      { mint: usdc, symbol: 'USDC', decimals: 6, max_allowed_fee: 5_000_000, conversion_slippage_percentage: 1 },
    ],
  });
  assert.deepEqual((await rpc('getFeaturesEnabled', {})).result, {
    method: 'getFeaturesEnabled',
    features: ['gasless'],
  });
});

test('a user with only tokens gets a quote, prepares, signs and sends: the relayer gets the fee in tokens and pays the chain in SOL', async () => {
  const friend = (await generateKeyPairSigner()).address;
  await sol.fundTokens(friend, usdc, 0n);
  const request = wire(user.address, [
    await tokenTransfer(friend, 1_000_000n),
    { programAddress: MEMO, data: new TextEncoder().encode('coffee') },
  ]);
  // The relayer pays 2 signatures and the rent of its own token account (created in the same transaction), +10 %.
  const cost = ((2n * FEE.perSignature + FEE.rent) * 110n) / 100n;
  const inTokens = (cost * 150_000_000n) / 1_000_000_000n;

  const estimate = await rpc('feeEstimate', { transaction: request, fee_token: usdc });
  assert.deepEqual(
    { ...estimate.result, conversion_rate: undefined },
    { method: 'feeEstimate', estimated_fee: (Number(inTokens) / 1e6).toString(), conversion_rate: undefined },
  );
  // The rate is read off the quote's amounts (both rounded down to whole units), as the reference does.
  assert.ok(Math.abs(Number(estimate.result.conversion_rate) - 150) < 1e-3, estimate.result.conversion_rate);
  assert.equal(jup.quotes.at(-1)?.get('slippageBps'), '100', 'the token slippage goes to the quote');

  const prepared = await rpc('prepareTransaction', { transaction: request, fee_token: usdc });
  assert.equal(prepared.result.fee_in_spl, inTokens.toString(), JSON.stringify(prepared));
  assert.equal(prepared.result.fee_in_lamports, cost.toString());
  assert.equal(prepared.result.fee_token, usdc);
  assert.equal(typeof prepared.result.valid_until_blockheight, 'number');

  const relayerSolBefore = sol.balance(RELAYER);
  const sent = await rpc('signAndSendTransaction', { transaction: await userSigns(prepared.result.transaction) });
  assert.equal(sent.result?.method, 'signAndSendTransaction', JSON.stringify(sent));
  assert.match(sent.result.id, /^[0-9a-f-]{36}$/);
  const record = await waitLanded(sent.result.id);
  assert.equal(record.status === 'failed' ? record.status_reason : 'landed', 'landed');
  assert.equal(record.signature, sent.result.signature);

  assert.equal(sol.tokenBalance(await ata(RELAYER, usdc)), inTokens, 'the relayer holds the fee in tokens');
  assert.equal(sol.tokenBalance(await ata(friend, usdc)), 1_000_000n);
  assert.equal(sol.tokenBalance(await ata(user.address, usdc)), 100_000_000n - 1_000_000n - inTokens);
  assert.equal(sol.balance(user.address), 0n, 'the user never held SOL');
  assert.equal(
    relayerSolBefore - sol.balance(RELAYER),
    2n * FEE.perSignature + FEE.rent,
    'the relayer paid the network fee and its token account in SOL',
  );
  assert.ok(signer.faults.signatures >= 2, 'the counter sees the relayer sign (prepare, then send)');
});

test('refused before the relayer signs: a short payment, a token not allowed, instructions that move the relayer funds', async () => {
  const count = async () =>
    (await s.request('GET', '/api/v1/relayers/gasless/transactions?per_page=100')).body.pagination.total_items;
  const before = await count();
  const signatures = signer.faults.signatures;
  const fresh = (
    await s.request('POST', '/api/v1/relayers/gasless/rpc', {
      body: { jsonrpc: '2.0', id: 1, method: 'getLatestBlockhash', params: [] },
    })
  ).body.result.value.blockhash;
  const paying = async (amount: bigint, extra: Instruction[] = []) =>
    userSigns(wire(RELAYER, [await tokenTransfer(RELAYER, amount), ...extra], fresh));

  const short = await rpc('signAndSendTransaction', { transaction: await paying(10n) });
  assert.deepEqual(short.error, {
    code: -32602,
    message: 'INVALID_PARAMS',
    description: "Transaction doesn't contain required fee payment instruction or payment amount is insufficient",
  });
  const signOnly = await rpc('signTransaction', { transaction: await paying(10n) });
  assert.equal(signOnly.error?.code, -32602, 'signTransaction checks the payment too');
  const signRoute = await s.request('POST', '/api/v1/relayers/gasless/sign-transaction', {
    body: { transaction: await paying(10n) },
  });
  assert.equal(signRoute.status, 400, 'and so does the sign-transaction route');
  assert.equal(
    signRoute.body.error,
    "Transaction doesn't contain required fee payment instruction or payment amount is insufficient",
  );

  const drain = getTransferSolInstruction({
    source: createNoopSigner(address(RELAYER)),
    destination: user.address,
    amount: 1_000_000n,
  });
  const stolen = await rpc('signAndSendTransaction', { transaction: await paying(1_000_000n, [drain]) });
  assert.deepEqual(stolen.error, {
    code: -32013,
    message: 'PREPARATION_ERROR',
    description:
      'Failed to prepare the transfer transaction: Policy violation: Lamports transfers are not allowed from the relayer account',
  });
  const foreign = await rpc('signAndSendTransaction', {
    transaction: await paying(1_000_000n, [
      { programAddress: MEMO, accounts: [{ address: address(RELAYER), role: 3 }], data: new Uint8Array([1]) },
    ]),
  });
  assert.match(
    foreign.error?.description ?? '',
    /Policy violation: instruction 1 \(program MemoSq\S+\) uses the relayer account/,
  );

  const otherToken = await rpc('prepareTransaction', {
    transaction: wire(user.address, [{ programAddress: MEMO, data: new Uint8Array([1]) }]),
    fee_token: other,
  });
  assert.deepEqual(otherToken.error, {
    code: -32013,
    message: 'PREPARATION_ERROR',
    description: `Failed to prepare the transfer transaction: Policy violation: Token ${other} not allowed for transfers`,
  });
  const payInOther = await rpc('signAndSendTransaction', {
    transaction: await userSigns(wire(RELAYER, [await tokenTransfer(RELAYER, 1_000_000_000n, other, 9)], fresh)),
  });
  assert.match(
    payInOther.error?.description ?? '',
    new RegExp(`Policy violation: Token ${other} not allowed for transfers`),
  );

  const instructions = await s.request('POST', '/api/v1/relayers/gasless/transactions', {
    body: { instructions: [{ program_id: MEMO, accounts: [], data: 'AQ==' }] },
  });
  assert.equal(instructions.status, 400);
  assert.match(instructions.body.error, /User-paid fees require a pre-built transaction/);
  assert.equal(await count(), before, 'nothing refused was recorded');
  assert.equal(signer.faults.signatures, signatures, "the relayer's signer was never called for a refused transaction");

  // Where the relayer pays too, its policies are checked before its signer is called.
  const memo = await s.request('POST', '/api/v1/relayers/strict/transactions', {
    body: { instructions: [{ program_id: MEMO, accounts: [], data: 'AQ==' }] },
  });
  assert.equal(memo.status, 400);
  assert.equal(memo.body.error, `Policy violation: Program ${MEMO} not allowed`);
  assert.equal(signer.faults.signatures, signatures);
});

test('transferTransaction: the token transfer and its fee, the recipient account created at the fee payer\u2019s cost', async () => {
  const recipient = (await generateKeyPairSigner()).address;
  const prepared = await rpc('transferTransaction', {
    amount: 2_000_000,
    token: usdc,
    source: user.address,
    destination: recipient,
  });
  assert.equal(prepared.result?.method, 'transferTransaction', JSON.stringify(prepared));
  const cost = ((2n * FEE.perSignature + FEE.rent) * 110n) / 100n; // the recipient's account; the relayer's exists now
  assert.equal(prepared.result.fee_in_lamports, cost.toString());
  const sent = await rpc('signAndSendTransaction', { transaction: await userSigns(prepared.result.transaction) });
  const record = await waitLanded(sent.result.id);
  assert.notEqual(record.status, 'failed', String(record.status_reason));
  assert.equal(sol.tokenBalance(await ata(recipient, usdc)), 2_000_000n);
  assert.deepEqual(
    (await rpc('transferTransaction', { amount: 0, token: usdc, source: user.address, destination: recipient })).error
      ?.description,
    'Failed to prepare the transfer transaction: Validation error: Amount must be greater than 0',
  );
});

test('bad params and price source failures answer JSON-RPC errors; the relayer strategy quotes without adding a fee transfer', async () => {
  assert.equal((await rpc('feeEstimate', { transaction: 'AA==' })).error?.code, -32602);
  assert.match(
    (await rpc('prepareTransaction', { transaction: wire(user.address, []), fee_token: usdc, extra: 1 })).error
      ?.description,
    /unknown field 'extra'/,
  );
  const unpriced = await sol.createMint(6);
  const relayerPays = await rpc(
    'feeEstimate',
    { transaction: wire(user.address, [{ programAddress: MEMO, data: new Uint8Array([1]) }]), fee_token: unpriced },
    'sponsor',
  );
  assert.equal(relayerPays.error?.code, -32001, JSON.stringify(relayerPays));
  assert.match(
    relayerPays.error.description,
    /^Failed to estimate the fee due to internal or network issues: Jupiter quote failed: HTTP 400/,
  );
  const quoted = await rpc(
    'feeEstimate',
    { transaction: wire(user.address, [{ programAddress: MEMO, data: new Uint8Array([1]) }]), fee_token: usdc },
    'sponsor',
  );
  // One signature (the relayer's: the memo names no signer), no margin, no token account: 5000 lamports.
  assert.deepEqual(quoted.result, { method: 'feeEstimate', estimated_fee: '0.00075', conversion_rate: '150' });
});

test('the REST routes: sponsored quote and build answer as feeEstimate and prepareTransaction; the signed result sent with POST /transactions lands', async () => {
  const friend = (await generateKeyPairSigner()).address;
  await sol.fundTokens(friend, usdc, 0n);
  const body = { transaction: wire(user.address, [await tokenTransfer(friend, 500_000n)]), fee_token: usdc };
  const quote = await s.request('POST', '/api/v1/relayers/gasless/transactions/sponsored/quote', { body });
  assert.equal(quote.status, 200, quote.text);
  assert.deepEqual(Object.keys(quote.body.data).sort(), ['conversion_rate', 'estimated_fee']);
  const built = await s.request('POST', '/api/v1/relayers/gasless/transactions/sponsored/build', { body });
  assert.equal(built.status, 200, built.text);
  assert.equal(built.body.data.fee_token, usdc);
  const refused = await s.request('POST', '/api/v1/relayers/gasless/transactions/sponsored/build', {
    body: { ...body, fee_token: other },
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error, `Policy violation: Token ${other} not allowed for transfers`);

  const before = sol.tokenBalance(await ata(RELAYER, usdc))!;
  const sent = await s.request('POST', '/api/v1/relayers/gasless/transactions', {
    body: { transaction: await userSigns(built.body.data.transaction) },
  });
  assert.equal(sent.status, 200, sent.text);
  const record = await waitLanded(sent.body.data.id);
  assert.notEqual(record.status, 'failed', String(record.status_reason));
  assert.equal(sol.tokenBalance(await ata(RELAYER, usdc)), before + BigInt(built.body.data.fee_in_spl));
  assert.equal(sol.tokenBalance(await ata(friend, usdc)), 500_000n);
});

test("a relayer without fee_payment_strategy has its users pay (the reference's default): instructions refused, the quote carries the fee transfer", async () => {
  const got = await s.request('GET', '/api/v1/relayers/unset');
  assert.equal(got.status, 200, got.text);
  assert.equal(
    got.body.data.policies?.fee_payment_strategy,
    undefined,
    'the default is applied where it is used, not stored or shown',
  );
  const signatures = signer.faults.signatures;
  const sent = await s.request('POST', '/api/v1/relayers/unset/transactions', {
    body: { instructions: [{ program_id: MEMO, accounts: [], data: 'AQ==' }] },
  });
  assert.equal(sent.status, 400, sent.text);
  assert.equal(
    sent.body.error,
    'User-paid fees require a pre-built transaction. Use prepareTransaction RPC method first to build the transaction from instructions.',
  );
  assert.equal(signer.faults.signatures, signatures, 'refused before the signer');
  assert.equal((await s.request('GET', '/api/v1/relayers/unset/transactions')).body.pagination.total_items, 0);

  // The same memo quoted: where the relayer pays, one signature (5000 lamports); here the user's token transfer to the
  // relayer is added, so the user signs too (10000 lamports; the relayer's USDC account exists by now), in USDC at 150.
  const memo = {
    transaction: wire(user.address, [{ programAddress: MEMO, data: new Uint8Array([1]) }]),
    fee_token: usdc,
  };
  assert.deepEqual((await rpc('feeEstimate', memo, 'sponsor')).result, {
    method: 'feeEstimate',
    estimated_fee: '0.00075',
    conversion_rate: '150',
  });
  assert.deepEqual((await rpc('feeEstimate', memo, 'unset')).result, {
    method: 'feeEstimate',
    estimated_fee: '0.0015',
    conversion_rate: '150',
  });
});
