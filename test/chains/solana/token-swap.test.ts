// Solana token swaps (swap_config, strategy jupiter-swap) through the real service, its job table on SQLite and its
// transaction service, against a SIMULATED Solana network (the real SVM in litesvm behind test/support/solana-rpc.ts)
// and a SIMULATED Jupiter API (test/support/jupiter-api.ts: a fixed price; its swap transaction really moves the
// relayer's tokens to a pool account and the pool's SOL to the relayer, signed by the pool).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { build, type TestServer } from '../../helper.ts';
import { startSolanaSim, type SolanaSim } from '../../support/solana-rpc.ts';
import { startJupiterSim, type JupiterSim } from '../../support/jupiter-api.ts';
import { resolveSigner } from '../../../src/signers/local/resolve.ts';

const keyOf = () => {
  const seed = randomBytes(32).toString('hex');
  return { seed, address: resolveSigner({ id: 'x', type: 'local', private_key: seed }, 'solana', {}).address };
};
const LOW = keyOf();
const FUNDED = keyOf();

let sol: SolanaSim;
let jup: JupiterSim;
let usdc: string;
let s: TestServer;
const ata = async (owner: string) =>
  (
    await findAssociatedTokenPda({ owner: address(owner), mint: address(usdc), tokenProgram: TOKEN_PROGRAM_ADDRESS })
  )[0];

before(async () => {
  sol = await startSolanaSim({ finalizeDepth: 2, slotMs: 50 });
  jup = await startJupiterSim(sol);
  usdc = await sol.createMint(6);
  jup.setPrice(usdc, 150_000_000n, 6);
  for (const k of [LOW, FUNDED]) {
    sol.airdrop(k.address, 1_000_000_000n);
    await sol.fundTokens(k.address, usdc, 10_000_000n); // 10 tokens collected as fees
  }
  const policies = (threshold: number) => ({
    fee_payment_strategy: 'user',
    allowed_tokens: [
      { mint: usdc, decimals: 6, swap_config: { retain_min_amount: 1_000_000, slippage_percentage: 1 } },
    ],
    // Every second (six fields, seconds first), so the test need not wait a minute.
    swap_config: { strategy: 'jupiter-swap', cron_schedule: '* * * * * *', min_balance_threshold: threshold },
  });
  s = await build(undefined, {
    env: { JUPITER_API_URL: jup.url, LOG_LEVEL: 'warn' },
    config: {
      networks: [{ type: 'solana', network: 'solana-sim', rpc_urls: [{ url: sol.url, weight: 100 }] }],
      signers: [
        { id: 'low', type: 'local', private_key: LOW.seed },
        { id: 'funded', type: 'local', private_key: FUNDED.seed },
      ],
      relayers: [
        {
          id: 'low',
          name: 'Below its threshold',
          network: 'solana-sim',
          signer_id: 'low',
          policies: policies(5_000_000_000),
        },
        {
          id: 'funded',
          name: 'Above its threshold',
          network: 'solana-sim',
          signer_id: 'funded',
          policies: policies(100_000_000),
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

test('below min_balance_threshold, the job sells the tokens above retain_min_amount for SOL through Jupiter, as a transaction of the relayer', async () => {
  const lamportsBefore = sol.balance(LOW.address);
  let swaps: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 200 && !swaps.some((t) => t.status === 'confirmed'); i++) {
    swaps = (await s.request('GET', '/api/v1/relayers/low/transactions?per_page=10')).body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(swaps.length, 1, JSON.stringify(swaps));
  assert.equal(swaps[0]!.status, 'confirmed', String(swaps[0]!.status_reason));
  assert.equal(sol.tokenBalance(await ata(LOW.address)), 1_000_000n, 'retain_min_amount is kept');
  // 9 tokens at 150 per SOL are 0.06 SOL; the pool pays the quote less 1 % slippage; the relayer paid the fee (2 signatures).
  assert.equal(sol.balance(LOW.address) - lamportsBefore, 59_400_000n - 10_000n);
  assert.equal(jup.quotes.find((q) => q.get('inputMint') === usdc)?.get('amount'), '9000000');
  assert.equal(
    jup.calls.get('/swap/v1/swap'),
    1,
    'one swap: none while it was in flight, and nothing left to sell after',
  );
});

test('at or above min_balance_threshold, the tokens are kept', async () => {
  assert.equal(sol.tokenBalance(await ata(FUNDED.address)), 10_000_000n);
  assert.equal((await s.request('GET', '/api/v1/relayers/funded/transactions')).body.pagination.total_items, 0);
});

test("swap_config is checked at load: the reference's fields only, a cron of five or six fields; jupiter-ultra refused with the reason", async () => {
  const { parsePolicies } = await import('../../../src/config/relayer-policies.ts');
  const swap = (swap_config: unknown) => () => parsePolicies('solana', { fee_payment_strategy: 'user', swap_config });
  assert.doesNotThrow(
    swap({
      strategy: 'jupiter-swap',
      cron_schedule: '0 0 * * * *',
      min_balance_threshold: 1,
      jupiter_swap_options: { priority_level: 'high', priority_fee_max_lamports: 1, dynamic_compute_unit_limit: true },
    }),
  );
  const refused = (fn: () => unknown, text: RegExp) =>
    assert.throws(fn, (err: { reason?: string }) => text.test(err.reason ?? ''), String(text));
  refused(
    swap({ strategy: 'jupiter-ultra', cron_schedule: '0 * * * *' }),
    /'policies.swap_config.strategy' cannot be 'jupiter-ultra'/,
  );
  refused(
    swap({ strategy: 'jupiter-swap', cron_schedule: 'hourly' }),
    /'policies.swap_config' must be an object \{ "strategy": "jupiter-swap", "cron_schedule"/,
  );
  refused(swap({ strategy: 'jupiter-swap', every: 1 }), /'policies.swap_config' must be an object/);
  refused(
    () => parsePolicies('solana', { allowed_tokens: [{ mint: 'm', swap_config: { retain: 1 } }] }),
    /'policies.allowed_tokens' must be an array/,
  );
});

test('a relayer created through the API gets its swap job with its first fee paid in tokens, and sells that fee back for SOL', async () => {
  const made = keyOf();
  const user = await generateKeyPairSigner();
  sol.airdrop(made.address, 1_000_000_000n);
  await sol.fundTokens(user.address, usdc, 50_000_000n);
  assert.equal(
    (await s.request('POST', '/api/v1/signers', { body: { id: 'made', type: 'plain', config: { key: made.seed } } }))
      .status,
    201,
  );
  const policies = {
    fee_payment_strategy: 'user',
    min_balance: 0,
    allowed_tokens: [{ mint: usdc, decimals: 6 }],
    swap_config: { strategy: 'jupiter-swap', cron_schedule: '* * * * * *', min_balance_threshold: 5_000_000_000 },
  };
  const created = await s.request('POST', '/api/v1/relayers', {
    body: {
      id: 'made',
      name: 'Made through the API',
      network: 'solana-sim',
      network_type: 'solana',
      paused: false,
      signer_id: 'made',
      policies,
    },
  });
  assert.equal(created.status, 201, created.text);

  // The user pays a memo's fee in tokens (prepare, sign, send).
  const memo = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(user.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash('EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k'), lastValidBlockHeight: 1n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        { programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), data: new Uint8Array([1]) },
        m,
      ),
  );
  const rpc = async (method: string, params: unknown) =>
    (await s.request('POST', '/api/v1/relayers/made/rpc', { body: { jsonrpc: '2.0', id: 1, method, params } })).body;
  const prepared = await rpc('prepareTransaction', {
    transaction: getBase64EncodedWireTransaction(compileTransaction(memo)),
    fee_token: usdc,
  });
  assert.ok(prepared.result, JSON.stringify(prepared));
  const signed = await partiallySignTransaction(
    [user.keyPair],
    getTransactionDecoder().decode(getBase64Encoder().encode(prepared.result.transaction)),
  );
  const sent = await rpc('signAndSendTransaction', { transaction: getBase64EncodedWireTransaction(signed) });
  assert.ok(sent.result?.id, JSON.stringify(sent));

  let records: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 200 && !(records.length === 2 && records.every((r) => r.status === 'confirmed')); i++) {
    await new Promise((r) => setTimeout(r, 50));
    records = (await s.request('GET', '/api/v1/relayers/made/transactions?per_page=10')).body.data;
  }
  assert.deepEqual(
    records.map((r) => r.status),
    ['confirmed', 'confirmed'],
    JSON.stringify(records.map((r) => r.status_reason)),
  );
  assert.equal(sol.tokenBalance(await ata(made.address)), 0n, 'the fee collected was sold');
  assert.equal(jup.quotes.at(-1)?.get('amount'), prepared.result.fee_in_spl);
});
