// The reference's token price and swap source: Jupiter's Swap API (GET /swap/v1/quote, POST /swap/v1/swap) at
// JUPITER_API_URL (default the reference's https://lite-api.jup.ag). Jupiter has no devnet or testnet, so on
// networks named `devnet` and `testnet` quotes are 1:1 and swaps are refused, as the reference's stand-in does.
import { AppError } from '../../errors.ts';
import type { SolanaDex, SolanaSwapQuote } from '../../domain/chains/solana/ports.ts';

export const DEFAULT_JUPITER_API_URL = 'https://lite-api.jup.ag';
const TIMEOUT_MS = 10_000;

const unavailable = (what: string, why: string) =>
  new AppError('CHAIN_UNAVAILABLE', { reason: `Jupiter ${what} failed: ${why}` });

const bigintField = (body: Record<string, unknown>, name: string): bigint => {
  const value = body[name];
  if (
    (typeof value === 'string' && /^\d+$/.test(value)) ||
    (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
  )
    return BigInt(value);
  throw new Error(`'${name}' is not an amount`);
};

async function call(what: string, url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    // No URL in the text: an operator's URL may carry an API key.
    throw unavailable(
      what,
      (err as Error).name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS} ms` : 'the API is unreachable',
    );
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  // Jupiter's errorCode (e.g. TOKEN_NOT_TRADABLE) is an identifier; its texts and any other body are not repeated.
  const code = (body as { errorCode?: unknown } | undefined)?.errorCode;
  if (!res.ok)
    throw unavailable(
      what,
      `HTTP ${res.status}${typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? ` (${code})` : ''}`,
    );
  if (body === null || typeof body !== 'object') throw unavailable(what, 'the answer is not a JSON object');
  return body as Record<string, unknown>;
}

function readQuote(body: Record<string, unknown>): SolanaSwapQuote {
  try {
    return {
      inputMint: String(body.inputMint),
      outputMint: String(body.outputMint),
      inAmount: bigintField(body, 'inAmount'),
      outAmount: bigintField(body, 'outAmount'),
      otherAmountThreshold: bigintField(body, 'otherAmountThreshold'),
      slippageBps: Number(body.slippageBps ?? 0),
      raw: body,
    };
  } catch (err) {
    throw unavailable('quote', `unexpected answer: ${(err as Error).message}`);
  }
}

function jupiter(baseUrl: string): SolanaDex {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async quote(inputMint, outputMint, amount, slippagePercent) {
      const query = new URLSearchParams({
        inputMint,
        outputMint,
        amount: amount.toString(),
        slippageBps: String(Math.round(slippagePercent * 100)),
      });
      return readQuote(await call('quote', `${base}/swap/v1/quote?${query}`));
    },
    async swapTransaction(quote, user, options) {
      const priority =
        options.priorityLevel || options.priorityFeeMaxLamports !== undefined
          ? {
              prioritizationFeeLamports: {
                priorityLevelWithMaxLamports: {
                  priorityLevel: options.priorityLevel ?? null,
                  maxLamports:
                    options.priorityFeeMaxLamports === undefined ? null : Number(options.priorityFeeMaxLamports),
                },
              },
            }
          : {};
      const body = {
        quoteResponse: quote.raw,
        userPublicKey: user,
        wrapAndUnwrapSol: true,
        feeAccount: null,
        ...priority,
        ...(options.dynamicComputeUnitLimit === undefined
          ? {}
          : { dynamicComputeUnitLimit: options.dynamicComputeUnitLimit }),
      };
      const answer = await call('swap', `${base}/swap/v1/swap`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (typeof answer.swapTransaction !== 'string') throw unavailable('swap', "the answer has no 'swapTransaction'");
      if (answer.simulationError)
        throw unavailable(
          'swap',
          "Jupiter's simulation of the swap failed (the swap would not succeed now; try another amount or later)",
        );
      return {
        transaction: answer.swapTransaction,
        lastValidBlockHeight: BigInt(Number(answer.lastValidBlockHeight ?? 0)),
      };
    },
  };
}

/** The reference's stand-in where Jupiter has no API: a token is worth its amount in lamports. */
const standIn = (network: string): SolanaDex => ({
  async quote(inputMint, outputMint, amount) {
    return {
      inputMint,
      outputMint,
      inAmount: amount,
      outAmount: amount,
      otherAmountThreshold: 0n,
      slippageBps: 0,
      raw: null,
    };
  },
  async swapTransaction() {
    throw new AppError('CHAIN_UNAVAILABLE', {
      reason: `Jupiter has no ${network} API: token swaps run on mainnet only`,
    });
  },
});

export function createSolanaDex(network: string, baseUrl: string = DEFAULT_JUPITER_API_URL): SolanaDex {
  return network === 'devnet' || network === 'testnet' ? standIn(network) : jupiter(baseUrl);
}
