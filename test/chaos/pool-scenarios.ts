// Issue 44's chaos scenario: a key pool under load whose lane `n` loses its funds mid-run (balance 0 while one of its
// transactions is unmined) and is funded again after `faultMs`. Beside verify.ts's verdict (every key's nonces, none
// lost or signed twice, every record final, its status as the chain says) its judge holds that the other lanes keep
// the pool's throughput meanwhile: no send refused, each of them taking sends, and what they took in the fault's
// first half mined before it ended, and the relayer never system-disabled (its balance check reads the first key).
// The drained lane's transactions end final once it is funded (the drain).
import type { Hex } from 'viem';
import { API_KEY } from '../helper.ts';
import type { SendOutcome } from './load.ts';
import { sleep, type Ctx, type Scenario } from './run.ts';
import { INFO } from './scenarios.ts';
import { RELAYER_ID } from './service.ts';

const KEYS = 4;
/** The pool's min_balance: a drained key is under it, so the balance check sees it (and must not disable the pool). */
const MIN_BALANCE = 10n ** 18n;
const NON_FINAL_WITH_NONCE = "nonce IS NOT NULL AND status IN ('pending', 'sent', 'submitted')";

const laneOf = (ctx: Ctx, n: number) => (n === 0 ? '' : ctx.addresses[n]!);

async function read<T>(ctx: Ctx, tail: string): Promise<T | undefined> {
  const res = await fetch(`${ctx.service.url()}/api/v1/relayers/${RELAYER_ID}${tail}`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  return ((await res.json()) as { data?: T }).data;
}

/** The lanes' states, whether the relayer is system-disabled, and when its balance was last checked (and at what level). */
async function relayerState(ctx: Ctx) {
  const [relayer, status] = await Promise.all([
    read<{ system_disabled: boolean; lanes?: Array<{ state: string }> }>(ctx, ''),
    read<{ balance_watch: { checked_at: string; level: string } | null }>(ctx, '/status'),
  ]);
  return {
    lanes: relayer?.lanes?.map((l) => l.state) ?? [],
    disabled: relayer?.system_disabled === true,
    checked: status?.balance_watch ? Date.parse(status.balance_watch.checked_at) : 0,
    level: status?.balance_watch?.level,
  };
}

/** Records per lane created in [from, to), from the store. */
function createdPerLane(ctx: Ctx, from: number, to: number): Map<string, number> {
  const rows = ctx.service
    .db()
    .prepare('SELECT lane, COUNT(*) AS n FROM transactions WHERE created_ms >= ? AND created_ms < ? GROUP BY lane')
    .all(from, to) as Array<{ lane: string; n: number }>;
  return new Map(rows.map((r) => [r.lane, r.n]));
}

interface Fault {
  start: number;
  end: number;
  /** Transactions the other keys' nonces moved by on the chain during the fault. */
  minedByOthers: number;
  /** Reads of the relayer during the fault that found it system-disabled. */
  disabledSeen: number;
}

const minedNonces = (ctx: Ctx, others: Hex[]) => Promise.all(others.map((a) => ctx.chain.nonce(a, 'latest')));

export function drainedPoolKey(n: number): Scenario {
  let fault: Fault | undefined;
  return {
    name: `pool-drained-key-${n}`,
    fault: `a pool of ${KEYS} keys, key ${n} drained mid-run with a transaction unmined, then funded`,
    pool: KEYS,
    service: { policies: { min_balance: Number(MIN_BALANCE) } },
    async inject(ctx) {
      const address = ctx.addresses[n]!;
      const others = ctx.addresses.filter((_, k) => k !== n);
      const held = ctx.service
        .db()
        .prepare(`SELECT COUNT(*) FROM transactions WHERE relayer_id = ? AND lane = ? AND ${NON_FINAL_WITH_NONCE}`)
        .pluck();
      // Mid-run: drained while one of its transactions waits in the node's pool for a block (again if a block took
      // it first), within 15 s.
      let funds: Hex | undefined;
      let heldWhenDrained = 0;
      for (const deadline = Date.now() + 15_000; heldWhenDrained === 0 && Date.now() < deadline; ) {
        if (held.get(RELAYER_ID, laneOf(ctx, n)) === 0) {
          await sleep(20);
          continue;
        }
        funds = await ctx.chain.rpc<Hex>('eth_getBalance', [address, 'latest']);
        await ctx.chain.rpc('anvil_setBalance', [address, '0x0']);
        heldWhenDrained = (await ctx.chain.nonce(address, 'pending')) - (await ctx.chain.nonce(address, 'latest'));
        if (heldWhenDrained === 0) await ctx.chain.rpc('anvil_setBalance', [address, funds]);
      }
      const start = Date.now();
      const before = await minedNonces(ctx, others);
      let leftRouting = 0;
      let disabledSeen = 0;
      let checkedUnderMin = 0;
      while (Date.now() - start < ctx.size.faultMs) {
        const state = await relayerState(ctx);
        if (state.lanes[n] === 'low_balance') leftRouting = 1;
        if (state.disabled) disabledSeen++;
        if (state.checked >= start && state.level === 'below_min_balance') checkedUnderMin = 1;
        await sleep(250);
      }
      const end = Date.now();
      const minedByOthers = (await minedNonces(ctx, others)).reduce((sum, m, k) => sum + m - before[k]!, 0);
      // Funded again (a drain that found nothing held was undone at once, and the evidence says so).
      if (heldWhenDrained > 0 && funds) await ctx.chain.rpc('anvil_setBalance', [address, funds]);
      fault = { start, end, minedByOthers, disabledSeen };
      // The first key is the one the balance check reads: its check under min_balance must have run in the fault.
      const checked = n === 0 ? 'balanceCheckedUnderMin' : `${INFO}balanceCheckedUnderMin`;
      return {
        heldWhenDrained,
        minedByOthers,
        [checked]: checkedUnderMin,
        [`${INFO}leftRouting`]: leftRouting,
        [`${INFO}drainedLaneSendsInFault`]: createdPerLane(ctx, start, end).get(laneOf(ctx, n)) ?? 0,
      };
    },
    async judge(ctx, outcomes) {
      if (!fault) return ['the fault never ran'];
      return judgeThroughput(ctx, n, outcomes, fault);
    },
  };
}

/** Every other lane kept the pool's throughput while lane `n` was drained. */
function judgeThroughput(ctx: Ctx, n: number, outcomes: SendOutcome[], fault: Fault): string[] {
  const wrong: string[] = [];
  if (fault.disabledSeen > 0)
    wrong.push(
      `the relayer was system-disabled during the fault (${fault.disabledSeen} reads) while other keys held funds`,
    );
  const notAcked = outcomes.filter((o) => o.kind !== 'acked' && o.at >= fault.start && o.at < fault.end);
  if (notAcked.length > 0)
    wrong.push(
      `${notAcked.length} sends during the fault not acknowledged: ${notAcked
        .slice(0, 3)
        .map((o) => `${o.statuses.join('/')} ${o.codes[0] ?? ''}`)
        .join('; ')}`,
    );
  const during = createdPerLane(ctx, fault.start, fault.end);
  for (const [k, address] of ctx.addresses.entries())
    if (k !== n && !during.get(laneOf(ctx, k))) wrong.push(`key ${k} (${address}) took no send during the fault`);
  // Sends taken in the fault's first half had half of it (at least 1 s blocks × 2) to be mined.
  const half = createdPerLane(ctx, fault.start, fault.start + (fault.end - fault.start) / 2);
  const tookFirstHalf = ctx.addresses.reduce((sum, _, k) => sum + (k === n ? 0 : (half.get(laneOf(ctx, k)) ?? 0)), 0);
  if (fault.minedByOthers < tookFirstHalf)
    wrong.push(
      `the other keys mined ${fault.minedByOthers} transactions during the fault, fewer than the ${tookFirstHalf} they took in its first half`,
    );
  return wrong;
}

/** The full suite's pool scenarios: the first key (the relayer row's own lane) and another one drained. */
export const POOL_SCENARIOS: Scenario[] = [drainedPoolKey(0), drainedPoolKey(3)];
