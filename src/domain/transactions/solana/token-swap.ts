// Token swaps on Solana (the reference's swap_config, strategy jupiter-swap): a relayer whose users pay fees in tokens
// sells what it collected back for SOL. One job per relayer on the store's job table (`solana.token-swap`), due at each
// time of `cron_schedule`, so it survives restarts and runs on one instance at a time. Each run, unless the SOL
// balance is at least `min_balance_threshold`, sells each allowed token's balance above `retain_min_amount` (capped by
// `max_amount`, at least `min_amount`) through Jupiter: its quote, then its swap transaction, which the relayer checks
// (it pays the fee, no SOL leaves it directly) and sends as an ordinary transaction of its own (pending → confirmed,
// webhooks) through the transaction service.
import type { SolanaChain, SolanaChains } from '../../chains/solana/ports.ts';
import {
  feePolicy,
  slippageOf,
  userPays,
  WRAPPED_SOL_MINT,
  type AllowedToken,
  type FeePolicy,
} from '../../chains/solana/fee-policy.ts';
import type { JobHandler } from '../../jobs/scheduler.ts';
import type { JobsRepo } from '../../jobs/ports.ts';
import { nextCronTime } from '../../jobs/cron.ts';
import type { Log } from '../../log.ts';
import type { RelayerRow, RelayersRepo, TransactionsRepo } from '../../relayers/ports.ts';
import { FINAL_STATUSES } from '../../types.ts';
import { swapAmount } from '../swap-amount.ts';

export const SOLANA_SWAP_JOB = 'solana.token-swap';

/** Bodies of the relayer's own swaps: the send path skips the user-payment check for these objects only. */
const ownSends = new WeakSet<object>();
export const isOwnSend = (body: object): boolean => ownSends.has(body);

export interface SolanaSwapDeps {
  chains: SolanaChains;
  relayers: Pick<RelayersRepo, 'get' | 'list' | 'count'>;
  jobs: Pick<JobsRepo, 'schedule'>;
  transactions: Pick<TransactionsRepo, 'find'>;
  /** Sends a transaction as the relayer (the transaction service's send); its id. */
  send(relayer: RelayerRow, body: { transaction: string }): Promise<string>;
  logger: Log;
  now?: () => number;
}

/** Swaps run for relayers whose users pay in tokens, with the jupiter-swap strategy and a schedule. */
const swapsOn = (policy: FeePolicy) =>
  userPays(policy) && policy.swap_config?.strategy === 'jupiter-swap' && !!policy.swap_config.cron_schedule;

/**
 * Jupiter's swap transaction is the DEX's, not the relayer's: it must make the relayer its fee payer and must not
 * send SOL from the relayer's account directly (a route's own programs move the tokens).
 */
function checkSwapTransaction(chain: SolanaChain, wire: string, relayer: string): void {
  const tx = chain.inspect(wire);
  if (tx.feePayer !== relayer) throw new Error(`the DEX's swap transaction is paid by ${tx.feePayer}, not the relayer`);
  if (tx.instructions.some((ix) => ix.parsed.type === 'system_transfer' && ix.parsed.from === relayer))
    throw new Error("the DEX's swap transaction sends SOL from the relayer");
}

/**
 * A relayer collecting fees gets its swap job if it has none (an existing one keeps its due time): so a relayer
 * created or changed through the API swaps without a restart.
 */
export async function ensureSwapJob(jobs: Pick<JobsRepo, 'schedule'>, relayer: RelayerRow, now: number): Promise<void> {
  const policy = feePolicy(relayer);
  if (swapsOn(policy))
    await jobs.schedule({
      kind: SOLANA_SWAP_JOB,
      subject: relayer.id,
      dueAt: nextCronTime(policy.swap_config!.cron_schedule!, now),
    });
}

export function createSolanaSwaps(deps: SolanaSwapDeps): { handler: JobHandler; resume(): Promise<void> } {
  const now = deps.now ?? Date.now;

  /** One token: the relayer's balance, the amount to sell, the quote and Jupiter's transaction; sent, or null. */
  async function swapToken(relayer: RelayerRow, token: AllowedToken): Promise<string | null> {
    const chain = deps.chains.solana(relayer.network);
    const mint = await chain.mint(token.mint);
    if (!mint) return null;
    const held = (await chain.tokenAccount(await chain.associatedTokenAddress(relayer.address, mint)))?.amount ?? 0n;
    const amount = swapAmount(held, token.swap_config);
    if (amount === 0n) return null;
    const quote = await chain.dex.quote(token.mint, WRAPPED_SOL_MINT, amount, slippageOf(token));
    const options = feePolicy(relayer).swap_config?.jupiter_swap_options ?? {};
    const swap = await chain.dex.swapTransaction(quote, relayer.address, {
      priorityLevel: options.priority_level,
      priorityFeeMaxLamports:
        options.priority_fee_max_lamports == null ? undefined : BigInt(options.priority_fee_max_lamports),
      dynamicComputeUnitLimit: options.dynamic_compute_unit_limit,
    });
    checkSwapTransaction(chain, swap.transaction, relayer.address);
    const body = { transaction: swap.transaction };
    ownSends.add(body);
    const id = await deps.send(relayer, body);
    deps.logger.info(
      {
        relayerId: relayer.id,
        token: token.mint,
        amount: amount.toString(),
        minLamports: quote.otherAmountThreshold.toString(),
        transactionId: id,
      },
      'token swap sent',
    );
    return id;
  }

  /** Sells the tokens unless the SOL balance is at or above the threshold; the ids of the swaps sent. */
  async function swapAll(relayer: RelayerRow, policy: FeePolicy): Promise<string[]> {
    const threshold = policy.swap_config?.min_balance_threshold;
    if (threshold != null && (await deps.chains.solana(relayer.network).balance(relayer.address)) >= BigInt(threshold))
      return [];
    const ids: string[] = [];
    for (const token of policy.allowed_tokens ?? []) {
      if (token.mint === WRAPPED_SOL_MINT) continue;
      try {
        const id = await swapToken(relayer, token);
        if (id) ids.push(id);
      } catch (err) {
        // One token's failure (Jupiter down, a refused send) leaves the others to swap; the next run tries again.
        deps.logger.warn(
          {
            relayerId: relayer.id,
            token: token.mint,
            err: (err as { reason?: string }).reason ?? (err as Error).message,
          },
          'token swap failed',
        );
      }
    }
    return ids;
  }

  const handler: JobHandler = async (job) => {
    const relayer = await deps.relayers.get(job.subject);
    const policy = relayer ? feePolicy(relayer) : {};
    if (!relayer || relayer.network_type !== 'solana' || !swapsOn(policy)) return; // swaps off: the job ends
    const previous = ((job.payload as { inFlight?: string[] } | null)?.inFlight ?? []) as string[];
    const stillOut: string[] = [];
    for (const id of previous) {
      const tx = await deps.transactions.find(id);
      if (tx && !FINAL_STATUSES.has(tx.record.status)) stillOut.push(id);
    }
    // Swaps still in flight: the balances do not show them yet, so no new ones until they land.
    const inFlight = stillOut.length
      ? stillOut
      : relayer.paused || relayer.system_disabled
        ? []
        : await swapAll(relayer, policy);
    await deps.jobs.schedule({
      kind: SOLANA_SWAP_JOB,
      subject: relayer.id,
      dueAt: nextCronTime(policy.swap_config!.cron_schedule!, now()),
      payload: { inFlight },
      replace: true,
    });
  };

  return {
    handler,
    /** At start: every Solana relayer with swaps on gets its job (an existing one keeps its due time). */
    async resume() {
      const total = await deps.relayers.count();
      for (let offset = 0; offset < total; offset += 100) {
        for (const relayer of await deps.relayers.list(100, offset))
          if (relayer.network_type === 'solana') await ensureSwapJob(deps.jobs, relayer, now());
      }
    },
  };
}
