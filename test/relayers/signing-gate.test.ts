// The signing gate (src/domain/signers/gate.ts) on a SIMULATED Solana network (test/support/solana-rpc.ts: the real SVM
// in litesvm runs the System and SPL Token programs and checks signatures; slots and commitment are simulated) with a
// SIMULATED Jupiter quote API (test/support/jupiter-api.ts: fixed prices, its documented shapes), through the real HTTP
// server: every path that makes the relayer's key sign a transaction applies its policies, whoever pays the fee, and
// simulates the transaction first. The real signer adapters count their signatures: a refusal must come before any.
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
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getBurnCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { build, type TestServer } from '../helper.ts';
import { startSolanaSim, type SolanaSim } from '../support/solana-rpc.ts';
import { startJupiterSim, type JupiterSim } from '../support/jupiter-api.ts';
import { faultySigners } from '../support/signer-faults.ts';
import { resolveSigner } from '../../src/signers/local/resolve.ts';

const SEED = randomBytes(32).toString('hex');
const RELAYER = resolveSigner({ id: 'x', type: 'local', private_key: SEED }, 'solana', {}).address;
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const SOL = 1_000_000_000n;

let sol: SolanaSim;
let jup: JupiterSim;
let usdc: string;
let user: KeyPairSigner;
let attacker: string;
let s: TestServer;
let signer: ReturnType<typeof faultySigners>;

/** A plugin asking the relayer to sign a transaction (the reference's plugin API). */
const PLUGIN = `export async function handler({ api, params }) {
  try { return { signed: await api.useRelayer(params.relayerId).signTransaction({ transaction: params.transaction }) }; }
  catch (e) { return { refused: { status: e.status, message: e.message } }; }
}`;

before(async () => {
  sol = await startSolanaSim({ finalizeDepth: 2 });
  jup = await startJupiterSim(sol);
  [usdc, user, attacker] = await Promise.all([
    sol.createMint(6),
    generateKeyPairSigner(),
    generateKeyPairSigner().then((k) => k.address),
  ]);
  jup.setPrice(usdc, 150_000_000n, 6); // 150 tokens per SOL
  sol.airdrop(RELAYER, 10n * SOL);
  await sol.fundTokens(user.address, usdc, 100_000_000n); // 100 tokens, no SOL
  await sol.fundTokens(RELAYER, usdc, 0n); // the relayer's token account, so a fee payment needs no creation
  const gasless = {
    fee_payment_strategy: 'user',
    min_balance: 0,
    allowed_tokens: [{ mint: usdc, decimals: 6, symbol: 'USDC', max_allowed_fee: 5_000_000 }],
  };
  signer = faultySigners();
  s = await build(undefined, {
    runtime: true,
    plugins: { 'signs.ts': PLUGIN },
    resolveSigner: signer.resolveSigner,
    env: { JUPITER_API_URL: jup.url, LOG_LEVEL: 'warn' },
    config: {
      networks: [{ type: 'solana', network: 'solana-sim', rpc_urls: [{ url: sol.url, weight: 100 }] }],
      signers: [{ id: 'key', type: 'local', private_key: SEED }],
      relayers: [
        {
          id: 'pays',
          name: 'Relayer pays, one account disallowed',
          network: 'solana-sim',
          signer_id: 'key',
          policies: { fee_payment_strategy: 'relayer', min_balance: 0, disallowed_accounts: [attacker] },
        },
        {
          id: 'strict',
          name: 'Relayer pays, System Program only, one signature',
          network: 'solana-sim',
          signer_id: 'key',
          policies: {
            fee_payment_strategy: 'relayer',
            min_balance: 0,
            allowed_programs: ['11111111111111111111111111111111'],
            max_signatures: 1,
          },
        },
        {
          id: 'keeps',
          name: 'Relayer pays, keeps 9.99 SOL',
          network: 'solana-sim',
          signer_id: 'key',
          policies: { fee_payment_strategy: 'relayer', min_balance: 9_999_999_000 },
        },
        { id: 'gasless', name: 'Users pay in tokens', network: 'solana-sim', signer_id: 'key', policies: gasless },
      ],
      notifications: [],
    } as never,
  });
});
after(async () => {
  await s?.close();
  await Promise.all([jup?.close(), sol?.close()]);
});

const rpc = async (relayer: string, method: string, params: unknown) =>
  (await s.request('POST', `/api/v1/relayers/${relayer}/rpc`, { body: { jsonrpc: '2.0', id: 1, method, params } }))
    .body;
const signRoute = (relayer: string, transaction: string) =>
  s.request('POST', `/api/v1/relayers/${relayer}/sign-transaction`, { body: { transaction } });
const ata = async (owner: string, mint: string) =>
  (
    await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS })
  )[0];

/** `instructions` paid by the relayer on the network's latest blockhash, signed by `signers` (the relayer's slot empty). */
async function relayerPaid(instructions: Instruction[], signers: KeyPairSigner[] = []): Promise<string> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(RELAYER), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(sol.svm.latestBlockhash()), lastValidBlockHeight: 1_000n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compiled = compileTransaction(message);
  return getBase64EncodedWireTransaction(
    signers.length
      ? await partiallySignTransaction(
          signers.map((k) => k.keyPair),
          compiled,
        )
      : compiled,
  );
}

/** Asks `ask` and checks it was refused with `reason` before the key signed anything. */
async function refusedUnsigned(
  ask: () => Promise<{ reason: string | undefined; signed: boolean }>,
  reason: RegExp,
  what: string,
): Promise<void> {
  const before = signer.faults.signatures;
  const answer = await ask();
  assert.equal(answer.signed, false, `${what}: signed`);
  assert.match(answer.reason ?? '', reason, what);
  assert.equal(signer.faults.signatures, before, `${what}: the key was asked for a signature`);
}

const viaRoute = (relayer: string, wire: string) => async () => {
  const res = await signRoute(relayer, wire);
  return { reason: res.body.error as string | undefined, signed: res.status === 200 };
};
const viaRpc = (relayer: string, method: string, wire: string) => async () => {
  const res = await rpc(relayer, method, { transaction: wire });
  return { reason: res.error?.description as string | undefined, signed: res.result !== undefined };
};

test("relayer pays: a transfer to a disallowed account is refused by every path that signs (send, sign-transaction, rpc signTransaction and signAndSendTransaction, a plugin's signTransaction)", async () => {
  const drain = await relayerPaid([
    getTransferSolInstruction({
      source: createNoopSigner(address(RELAYER)),
      destination: address(attacker),
      amount: SOL,
    }),
  ]);
  const disallowed = new RegExp(
    `^(Failed to prepare the transfer transaction: )?Policy violation: Account ${attacker} is explicitly disallowed$`,
  );
  await refusedUnsigned(
    async () => {
      const res = await s.request('POST', '/api/v1/relayers/pays/transactions', { body: { transaction: drain } });
      return { reason: res.body.error, signed: res.status === 200 };
    },
    disallowed,
    'the send route',
  );
  await refusedUnsigned(viaRoute('pays', drain), disallowed, 'POST sign-transaction');
  await refusedUnsigned(viaRpc('pays', 'signTransaction', drain), disallowed, 'rpc signTransaction');
  await refusedUnsigned(viaRpc('pays', 'signAndSendTransaction', drain), disallowed, 'rpc signAndSendTransaction');
  await refusedUnsigned(
    async () => {
      const res = await s.request('POST', '/api/v1/plugins/signs/call', {
        body: { params: { relayerId: 'pays', transaction: drain } },
      });
      assert.equal(res.status, 200, res.text);
      return { reason: res.body.data.refused?.message, signed: res.body.data.signed !== undefined };
    },
    disallowed,
    "a plugin's signTransaction",
  );
  assert.equal(sol.balance(attacker), 0n, 'nothing reached the disallowed account');

  // The rpc methods also apply the reference's rule whoever pays: no lamports out of the relayer's account.
  const friend = (await generateKeyPairSigner()).address;
  const gift = await relayerPaid([
    getTransferSolInstruction({
      source: createNoopSigner(address(RELAYER)),
      destination: address(friend),
      amount: SOL,
    }),
  ]);
  await refusedUnsigned(
    viaRpc('pays', 'signTransaction', gift),
    /Policy violation: Lamports transfers are not allowed from the relayer account$/,
    'rpc signTransaction, lamports out',
  );

  // Control: a harmless transaction is signed by both routes.
  const memo = await relayerPaid([{ programAddress: MEMO, data: new TextEncoder().encode('hello') }]);
  const signed = await signRoute('pays', memo);
  assert.equal(signed.status, 200, signed.text);
  assert.equal(typeof (await rpc('pays', 'signTransaction', { transaction: memo })).result?.signature, 'string');
});

test('relayer pays: sign-transaction applies allowed_programs, max_signatures and min_balance as the send route does', async () => {
  const memo = await relayerPaid([{ programAddress: MEMO, data: new TextEncoder().encode('not allowed') }]);
  await refusedUnsigned(
    viaRoute('strict', memo),
    new RegExp(`^Policy violation: Program ${MEMO} not allowed$`),
    'allowed_programs',
  );
  const cosigner = await generateKeyPairSigner();
  sol.airdrop(cosigner.address, SOL);
  const twoSigners = await relayerPaid(
    [getTransferSolInstruction({ source: cosigner, destination: address(RELAYER), amount: 1_000n })],
    [cosigner],
  );
  await refusedUnsigned(
    viaRoute('strict', twoSigners),
    /^Policy violation: Transaction requires 2 signatures, which exceeds maximum allowed 1$/,
    'max_signatures',
  );
  const harmless = await relayerPaid([{ programAddress: MEMO, data: new TextEncoder().encode('keeps') }]);
  await refusedUnsigned(
    viaRoute('keeps', harmless),
    /^Insufficient relayer balance\. Required: \d+, Available: \d+, Fee: 5000, Min balance: 9999999000$/,
    'min_balance',
  );
});

/** The user's fee payment to the relayer in tokens, after `before` (instructions of the user's own). */
async function gaslessTransaction(before: Instruction[]): Promise<string> {
  const payment = getTransferCheckedInstruction({
    source: await ata(user.address, usdc),
    mint: address(usdc),
    destination: await ata(RELAYER, usdc),
    authority: createNoopSigner(user.address),
    amount: 5_000n,
    decimals: 6,
  });
  return relayerPaid([...before, payment], [user]);
}

test('users pay: a transaction whose fee payment would fail is simulated and refused before the relayer signs as fee payer', async () => {
  // The user burns every token first: the payment (instruction 1) then fails with the Token program's InsufficientFunds (Custom 1).
  const burnAll = getBurnCheckedInstruction({
    account: await ata(user.address, usdc),
    mint: address(usdc),
    authority: createNoopSigner(user.address),
    amount: 100_000_000n,
    decimals: 6,
  });
  const unpaid = await gaslessTransaction([burnAll]);
  const simulation = /Transaction simulation failed: instruction 1 failed: Custom\(1\)$/;
  await refusedUnsigned(viaRpc('gasless', 'signTransaction', unpaid), simulation, 'rpc signTransaction');
  await refusedUnsigned(viaRoute('gasless', unpaid), simulation, 'POST sign-transaction');
  await refusedUnsigned(viaRpc('gasless', 'signAndSendTransaction', unpaid), simulation, 'rpc signAndSendTransaction');
  await refusedUnsigned(
    async () => {
      const res = await s.request('POST', '/api/v1/relayers/gasless/transactions', { body: { transaction: unpaid } });
      return { reason: res.body.error, signed: res.status === 200 };
    },
    simulation,
    'the send route',
  );
  assert.equal(sol.tokenBalance(await ata(user.address, usdc)), 100_000_000n, 'nothing landed');

  // Control: the same payment without the burn simulates, and is signed.
  const paid = await rpc('gasless', 'signTransaction', { transaction: await gaslessTransaction([]) });
  assert.equal(typeof paid.result?.signature, 'string', JSON.stringify(paid));
});

test('users pay: prepareTransaction and the sponsored build simulate what the relayer signs (a burn the fee payment leaves unpayable is refused)', async () => {
  // The relayer builds these itself: the simulation runs the user's instructions with the fee payment the relayer adds.
  const burnAll = getBurnCheckedInstruction({
    account: await ata(user.address, usdc),
    mint: address(usdc),
    authority: createNoopSigner(user.address),
    amount: 100_000_000n,
    decimals: 6,
  });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(user.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(sol.svm.latestBlockhash()), lastValidBlockHeight: 1_000n },
        m,
      ),
    // Instruction 0 of the prepared transaction is the relayer's fee transfer; the burn follows it and takes more than is left.
    (m) => appendTransactionMessageInstructions([burnAll], m),
  );
  const request = getBase64EncodedWireTransaction(compileTransaction(message));
  await refusedUnsigned(
    async () => {
      const res = await rpc('gasless', 'prepareTransaction', { transaction: request, fee_token: usdc });
      return { reason: res.error?.description, signed: res.result !== undefined };
    },
    /Transaction simulation failed: instruction 1 failed: Custom\(1\)$/,
    'rpc prepareTransaction',
  );
  await refusedUnsigned(
    async () => {
      const res = await s.request('POST', '/api/v1/relayers/gasless/transactions/sponsored/build', {
        body: { transaction: request, fee_token: usdc },
      });
      return { reason: res.body.error, signed: res.status === 200 };
    },
    /Transaction simulation failed: instruction 1 failed: Custom\(1\)$/,
    'sponsored build',
  );
});
