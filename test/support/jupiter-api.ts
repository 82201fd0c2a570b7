// A SIMULATED Jupiter Swap API for tests (JUPITER_API_URL points here), speaking its documented shapes:
// GET /swap/v1/quote?inputMint&outputMint&amount&slippageBps → { inputMint, inAmount, outputMint, outAmount,
// otherAmountThreshold, swapMode, slippageBps, priceImpactPct, routePlan, … } (amounts as strings), and
// POST /swap/v1/swap { quoteResponse, userPublicKey, … } → { swapTransaction, lastValidBlockHeight }.
// Simulated: prices are a fixed table the test sets (token units per lamport); the market is one pool account. A swap
// is a real transaction against the SVM behind test/support/solana-rpc.ts: the user's tokens go to the pool's token
// account (TransferChecked) and the pool pays the user lamports (System transfer), signed by the pool.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type KeyPairSigner,
} from '@solana/kit';
import { createNoopSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTransferCheckedInstruction } from '@solana-program/token';
import type { SolanaSim } from './solana-rpc.ts';

export const WSOL = 'So11111111111111111111111111111111111111112';

export interface JupiterSim {
  url: string;
  /** `mint` is worth `tokensPerSol` of its smallest units per SOL (10^9 lamports). */
  setPrice(mint: string, tokensPerSol: bigint, decimals: number): void;
  /** The pool's address (it holds SOL and receives tokens in swaps). */
  readonly pool: string;
  /** Requests received, by path. */
  readonly calls: Map<string, number>;
  /** Quote requests as received (their query). */
  readonly quotes: URLSearchParams[];
  close(): Promise<void>;
}

const LAMPORTS_PER_SOL = 1_000_000_000n;

export async function startJupiterSim(sim: SolanaSim): Promise<JupiterSim> {
  const prices = new Map<string, { perSol: bigint; decimals: number }>();
  const calls = new Map<string, number>();
  const quotes: URLSearchParams[] = [];
  const pool: KeyPairSigner = await generateKeyPairSigner();
  sim.airdrop(pool.address, 1_000n * LAMPORTS_PER_SOL);

  function quote(q: URLSearchParams): [number, unknown] {
    const [inputMint, outputMint, amount, slippageBps] = ['inputMint', 'outputMint', 'amount', 'slippageBps'].map(
      (k) => q.get(k) ?? '',
    );
    if (!/^\d+$/.test(amount!) || BigInt(amount!) === 0n)
      return [400, { error: 'amount must be a positive integer', errorCode: 'INVALID_AMOUNT' }];
    const sell = inputMint === WSOL ? prices.get(outputMint!) : prices.get(inputMint!);
    if (!sell || (inputMint !== WSOL && outputMint !== WSOL))
      return [
        400,
        {
          error: `The token ${inputMint === WSOL ? outputMint : inputMint} is not tradable`,
          errorCode: 'TOKEN_NOT_TRADABLE',
        },
      ];
    const inAmount = BigInt(amount!);
    const outAmount =
      inputMint === WSOL ? (inAmount * sell.perSol) / LAMPORTS_PER_SOL : (inAmount * LAMPORTS_PER_SOL) / sell.perSol;
    const bps = BigInt(Number(slippageBps) || 0);
    const swapInfo = {
      ammKey: pool.address,
      label: 'Simulated pool',
      inputMint,
      outputMint,
      inAmount: inAmount.toString(),
      outAmount: outAmount.toString(),
      feeAmount: '0',
      feeMint: inputMint,
    };
    return [
      200,
      {
        inputMint,
        inAmount: inAmount.toString(),
        outputMint,
        outAmount: outAmount.toString(),
        otherAmountThreshold: (outAmount - (outAmount * bps) / 10_000n).toString(),
        swapMode: 'ExactIn',
        slippageBps: Number(bps),
        platformFee: null,
        priceImpactPct: '0',
        routePlan: [{ swapInfo, percent: 100 }],
        contextSlot: sim.slot,
        timeTaken: 0.001,
      },
    ];
  }

  /** Token → SOL only (what the relayer's swaps do): the user's tokens to the pool, the pool's lamports to the user. */
  async function swap(body: {
    quoteResponse?: Record<string, string>;
    userPublicKey?: string;
  }): Promise<[number, unknown]> {
    const q = body.quoteResponse;
    if (!q || !body.userPublicKey || q.outputMint !== WSOL || !prices.has(q.inputMint!))
      return [400, { error: 'only token to SOL swaps of a quote from this API', errorCode: 'INVALID_REQUEST' }];
    const user = address(body.userPublicKey);
    const mint = address(q.inputMint!);
    const [[source], [destination]] = await Promise.all([
      findAssociatedTokenPda({ owner: user, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
      findAssociatedTokenPda({ owner: pool.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    ]);
    if (sim.tokenBalance(destination) === null) await sim.fundTokens(pool.address, mint, 0n);
    const { decimals } = prices.get(q.inputMint!)!;
    const instructions = [
      getTransferCheckedInstruction({
        source,
        mint,
        destination,
        authority: createNoopSigner(user),
        amount: BigInt(q.inAmount!),
        decimals,
      }),
      getTransferSolInstruction({ source: pool, destination: user, amount: BigInt(q.otherAmountThreshold!) }),
    ];
    const blockhash = sim.svm.latestBlockhash() as Blockhash;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(user, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight: BigInt(sim.slot + 150) }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await partiallySignTransaction([pool.keyPair], compileTransaction(message));
    return [
      200,
      {
        swapTransaction: getBase64EncodedWireTransaction(signed),
        lastValidBlockHeight: sim.slot + 150,
        prioritizationFeeLamports: 0,
        computeUnitLimit: 200_000,
      },
    ];
  }

  async function answer(req: IncomingMessage): Promise<[number, unknown]> {
    const url = new URL(req.url ?? '/', 'http://jupiter');
    calls.set(url.pathname, (calls.get(url.pathname) ?? 0) + 1);
    if (req.method === 'GET' && url.pathname === '/swap/v1/quote') {
      quotes.push(url.searchParams);
      return quote(url.searchParams);
    }
    if (req.method === 'POST' && url.pathname === '/swap/v1/swap') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      return swap(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    }
    return [404, { error: 'Not found' }];
  }

  const server: Server = createServer((req, res) => {
    answer(req)
      .then(([status, body]) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)))
      .catch((err: Error) =>
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: err.message })),
      );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setPrice: (mint, perSol, decimals) => void prices.set(mint, { perSol, decimals }),
    pool: pool.address,
    calls,
    quotes,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
