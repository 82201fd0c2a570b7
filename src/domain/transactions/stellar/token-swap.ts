// Token swaps (the reference's swap_config on Stellar, strategy order-book): a relayer whose users pay fees in tokens
// sells what it collected back for XLM. One job per relayer on the store's job table (`stellar.token-swap`), due at
// each time of `cron_schedule` (every 10 minutes without one), so it survives restarts and runs on one instance at a
// time. Each run, unless the XLM balance is at least `min_balance_threshold`, sells each allowed token's balance
// above `retain_min_amount` (capped by `max_amount`, at least `min_amount`) with a path payment strict send priced
// from the order book, its minimum XLM received lowered by the token's slippage. The swap is an ordinary transaction
// of the relayer (pending → confirmed, webhooks), sent through the transaction service.
import { Asset, Operation, TransactionBuilder, Account } from '@stellar/stellar-base';
import type { StellarChains } from '../../chains/stellar/ports.ts';
import type { JobHandler } from '../../jobs/scheduler.ts';
import type { JobsRepo } from '../../jobs/ports.ts';
import { nextCronTime } from '../../jobs/cron.ts';
import type { Log } from '../../log.ts';
import type { RelayerRow, RelayersRepo, TransactionsRepo } from '../../relayers/ports.ts';
import { FINAL_STATUSES } from '../../types.ts';
import {
  isContractToken,
  isNativeToken,
  tokenAsset,
  tokenDecimals,
  type AllowedToken,
  type StellarFeePolicy,
} from './fee-token.ts';
import { swapAmount } from '../swap-amount.ts';

export const STELLAR_SWAP_JOB = 'stellar.token-swap';
const DEFAULT_INTERVAL_MS = 10 * 60_000;
/** The reference's default slippage for conversions, percent. */
const DEFAULT_SLIPPAGE = 1;
/** The reference's validity of a swap transaction. */
const SWAP_VALIDITY_S = 300;

interface SwapPolicy extends StellarFeePolicy {
  swap_config?: { strategies?: string[]; cron_schedule?: string; min_balance_threshold?: number };
}

export interface StellarSwapDeps {
  chains: StellarChains;
  relayers: Pick<RelayersRepo, 'get' | 'list' | 'count'>;
  jobs: Pick<JobsRepo, 'schedule'>;
  transactions: Pick<TransactionsRepo, 'find'>;
  /** Sends a transaction as the relayer (the transaction service's send); its id. */
  send(relayer: RelayerRow, body: { network: string; transaction_xdr: string }): Promise<string>;
  logger: Log;
  now?: () => number;
}

/** Swaps run for relayers whose users pay in tokens and whose swap_config names the order book. */
const swapsOn = (policy: SwapPolicy) =>
  policy.fee_payment_strategy === 'user' && (policy.swap_config?.strategies ?? []).includes('order-book');

/** The swap job of a relayer whose policy turns swaps on (null otherwise): due at its next scheduled time. */
export function swapJobFor(relayer: RelayerRow, now: number): { kind: string; subject: string; dueAt: number } | null {
  const policy = (relayer.policies ?? {}) as SwapPolicy;
  if (relayer.network_type !== 'stellar' || !swapsOn(policy)) return null;
  return { kind: STELLAR_SWAP_JOB, subject: relayer.id, dueAt: nextRun(policy, now) };
}

const nextRun = (policy: SwapPolicy, now: number) =>
  policy.swap_config?.cron_schedule ? nextCronTime(policy.swap_config.cron_schedule, now) : now + DEFAULT_INTERVAL_MS;

/** The transaction that sells `amount` of the token for at least the quoted XLM less slippage, to the relayer itself. */
function swapXdr(
  relayer: string,
  passphrase: string,
  token: string,
  amount: bigint,
  destMin: bigint,
  now: number,
): string {
  const spec = tokenAsset(token);
  if (spec.type === 'native') throw new Error('native is not swapped');
  const units = (n: bigint) => `${n / 10_000_000n}.${(n % 10_000_000n).toString().padStart(7, '0')}`;
  const op = Operation.pathPaymentStrictSend({
    sendAsset: new Asset(spec.code, spec.issuer),
    sendAmount: units(amount),
    destination: relayer,
    destAsset: Asset.native(),
    destMin: units(destMin),
    path: [],
  });
  // The sequence number is the lane's to set when it signs.
  return new TransactionBuilder(new Account(relayer, '0'), {
    fee: '100',
    networkPassphrase: passphrase,
    timebounds: { minTime: 0, maxTime: Math.floor(now / 1000) + SWAP_VALIDITY_S },
  })
    .addOperation(op)
    .build()
    .toXDR();
}

export function createStellarSwaps(deps: StellarSwapDeps): { handler: JobHandler; resume(): Promise<void> } {
  const now = deps.now ?? Date.now;

  /** One token: its balance, the amount to sell, the order book's price; the swap sent, or why not. */
  async function swapToken(relayer: RelayerRow, policy: SwapPolicy, token: AllowedToken): Promise<string | null> {
    const chain = deps.chains.stellar(relayer.network);
    const asset = tokenAsset(token.asset);
    const held = (await chain.account(relayer.address, [asset]))?.balances[0]?.balance ?? 0n;
    const amount = swapAmount(held, token.swap_config);
    if (amount === 0n) return null;
    const quote = await chain.strictSendPath(
      asset,
      amount,
      { type: 'native' },
      { source: tokenDecimals(policy, token.asset), destination: 7 },
    );
    if (!quote || quote.destinationAmount === 0n) {
      deps.logger.warn(
        { relayerId: relayer.id, token: token.asset },
        'token swap: no order book path to XLM; not swapped',
      );
      return null;
    }
    const slippage = token.swap_config?.slippage_percentage ?? policy.slippage_percentage ?? DEFAULT_SLIPPAGE;
    const bps = BigInt(Math.floor(slippage * 100));
    const destMin = (quote.destinationAmount * (10_000n - bps)) / 10_000n || 1n;
    const id = await deps.send(relayer, {
      network: relayer.network,
      transaction_xdr: swapXdr(relayer.address, chain.passphrase, token.asset, amount, destMin, now()),
    });
    deps.logger.info(
      {
        relayerId: relayer.id,
        token: token.asset,
        amount: amount.toString(),
        minXlm: destMin.toString(),
        transactionId: id,
      },
      'token swap sent',
    );
    return id;
  }

  /** Sells the tokens unless the XLM balance is at or above the threshold; the ids of the swaps sent. */
  async function swapAll(relayer: RelayerRow, policy: SwapPolicy): Promise<string[]> {
    const threshold = policy.swap_config?.min_balance_threshold;
    if (threshold != null) {
      const xlm = (await deps.chains.stellar(relayer.network).account(relayer.address))?.balance ?? 0n;
      if (xlm >= BigInt(threshold)) return [];
    }
    const ids: string[] = [];
    for (const token of policy.allowed_tokens ?? []) {
      if (isNativeToken(token.asset) || isContractToken(token.asset)) continue;
      try {
        const id = await swapToken(relayer, policy, token);
        if (id) ids.push(id);
      } catch (err) {
        // One token's failure (a refused send, Horizon down) leaves the others to swap; the next run tries again.
        deps.logger.warn(
          {
            relayerId: relayer.id,
            token: token.asset,
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
    const policy = (relayer?.policies ?? {}) as SwapPolicy;
    if (!relayer || relayer.network_type !== 'stellar' || !swapsOn(policy)) return; // swaps off: the job ends
    const previous = ((job.payload as { inFlight?: string[] } | null)?.inFlight ?? []) as string[];
    const stillOut = [];
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
      kind: STELLAR_SWAP_JOB,
      subject: relayer.id,
      dueAt: nextRun(policy, now()),
      payload: { inFlight },
      replace: true,
    });
  };

  return {
    handler,
    /** At start: every Stellar relayer with swaps on gets its job (an existing one keeps its due time). */
    async resume() {
      const total = await deps.relayers.count();
      for (let offset = 0; offset < total; offset += 100) {
        for (const relayer of await deps.relayers.list(100, offset)) {
          let job: ReturnType<typeof swapJobFor>;
          try {
            job = swapJobFor(relayer, now());
          } catch (err) {
            // A schedule that names no time (31 February) leaves this relayer without swaps, not the service without a start.
            deps.logger.warn(
              { relayerId: relayer.id, err: (err as { reason?: string }).reason ?? (err as Error).message },
              'token swap job not scheduled',
            );
            continue;
          }
          if (!job) continue;
          // With a threshold, the balance is looked at once at start, as the reference's health check does.
          const threshold = (relayer.policies as SwapPolicy).swap_config?.min_balance_threshold != null;
          await deps.jobs.schedule(threshold ? { ...job, dueAt: now() } : job);
        }
      }
    },
  };
}
