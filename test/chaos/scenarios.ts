// The chaos scenarios of issue 26. Each one's fault starts once the traffic has run a while and lasts `faultMs`; it returns
// proof that it hit (a test whose fault did nothing would pass for the wrong reason): every count it returns must be
// above 0, except those named with the INFO prefix.
import { numberToHex, type Hex } from 'viem';
import { sleep, type Ctx, type Scenario } from './run.ts';
import { RECIPIENT } from './load.ts';
import { RELAYER_ADDRESS, RELAYER_KEY } from './service.ts';

const GWEI = 1_000_000_000n;
/** The base fee before and after the spike, and the relayer's cap in the fee-spike scenario: spike = 20 × base > cap. */
const BASE_FEE = GWEI;
const CAP = 10n * GWEI;
const SPIKE = 20n * BASE_FEE;
/** Values of the test's own sends with the relayer's key: apart from the load's markers. */
const FOREIGN_BASE = 2_000_000_000n;

export const INFO = 'info:';

/** Blocks in the chain whose base fee is at least `wei`. */
async function blocksAtLeast(ctx: Ctx, wei: bigint, from: number): Promise<number> {
  const head = Number(await ctx.chain.rpc<Hex>('eth_blockNumber'));
  let n = 0;
  for (let b = from; b <= head; b++) {
    const block = await ctx.chain.rpc<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', [`0x${b.toString(16)}`, false]);
    if (BigInt(block.baseFeePerGas) >= wei) n++;
  }
  return n;
}

export const feeSpike: Scenario = {
  name: 'fee-spike',
  fault: `base fee ×20 (${SPIKE / GWEI} gwei), cap ${CAP / GWEI} gwei`,
  service: { policies: { gas_price_cap: Number(CAP) } },
  // Every fifth send may wait a third of the spike at most: those caught by it expire through a NOOP (at the cap, mined
  // once fees fall); the others are confirmed.
  sendExtra: (i, size) =>
    i % 5 === 0 ? { valid_until: new Date(Date.now() + Math.max(3_000, size.faultMs / 3)).toISOString() } : {},
  async prepare(ctx) {
    await ctx.chain.setNextBaseFee(BASE_FEE);
  },
  async inject(ctx) {
    const from = Number(await ctx.chain.rpc<Hex>('eth_blockNumber'));
    // anvil sets the base fee for the next block only: held there by setting it again before every block.
    const until = Date.now() + ctx.size.faultMs;
    while (Date.now() < until) {
      await ctx.chain.setNextBaseFee(SPIKE);
      await sleep(200);
    }
    await ctx.chain.setNextBaseFee(BASE_FEE);
    return { spikeBlocks: await blocksAtLeast(ctx, SPIKE, from) };
  },
};

export const flakyRpc: Scenario = {
  name: 'flaky-rpc',
  fault: '1 of 2 URLs: 30% HTTP 503/429, then hanging',
  rpcUrls: 2,
  // The timeouts are the operator's knob: 2 s keeps the scenario short (the default is 10 s).
  service: { env: { RPC_TIMEOUT_MS: '2000' } },
  async inject(ctx) {
    const bad = ctx.proxies[0]!;
    bad.mode = { kind: 'errors', rate: 0.3 };
    await sleep(ctx.size.faultMs / 2);
    // In a short run a handful of calls may all pass at 30%: the phase lasts until one has failed (5 s more at most).
    for (let i = 0; i < 50 && bad.counts.errors === 0; i++) await sleep(100);
    bad.mode = { kind: 'hang' };
    await sleep(ctx.size.faultMs / 2);
    // A URL that failed is skipped for a cooldown (2 s, doubling): in a short run, hang until a request has hung.
    for (let i = 0; i < 50 && bad.counts.hung === 0; i++) await sleep(100);
    bad.mode = { kind: 'pass' };
    return { errors: bad.counts.errors, hung: bad.counts.hung, [`${INFO}forwarded`]: bad.counts.forwarded };
  },
};

export const allRpcDown: Scenario = {
  name: 'all-rpc-down',
  fault: 'both RPC URLs down',
  rpcUrls: 2,
  async inject(ctx) {
    for (const p of ctx.proxies) p.mode = { kind: 'down' };
    await sleep(ctx.size.faultMs);
    for (const p of ctx.proxies) p.mode = { kind: 'pass' };
    return { cutFirst: ctx.proxies[0]!.counts.cut, cutSecond: ctx.proxies[1]!.counts.cut };
  },
};

export const anvilRestart: Scenario = {
  name: 'anvil-kill',
  fault: 'anvil SIGKILL, restarted on its saved state',
  chain: 'persisted',
  // anvil saves its state every second, so a kill loses about the last second of blocks: with 4 confirmations,
  // nothing the relayer calls final can be in what is lost (a deeper loss would be a reorg past finality).
  service: { confirmations: 4 },
  async inject(ctx) {
    const before = Number(await ctx.chain.rpc<Hex>('eth_blockNumber'));
    await ctx.chain.kill();
    await sleep(ctx.size.faultMs);
    const url = await ctx.chain.restart();
    for (const p of ctx.proxies) p.upstream = url;
    const after = Number(await ctx.chain.rpc<Hex>('eth_blockNumber'));
    return { kills: 1, blockBeforeKill: before, blockAfterRestart: after, cut: ctx.proxies[0]!.counts.cut };
  },
};

export const serviceKill: Scenario = {
  name: 'service-kill',
  fault: 'service SIGKILL mid-run, restarted',
  async inject(ctx) {
    // Mid-request: the kill waits (a little) for a send to be in flight.
    for (let i = 0; i < 2000 && ctx.traffic.inFlight === 0; i++) await sleep(1);
    const inFlightAtKill = ctx.traffic.inFlight;
    await ctx.service.kill();
    await sleep(ctx.size.faultMs);
    await ctx.service.restart();
    return { kills: 1, inFlightAtKill };
  },
};

export const noncesBehindBack: Scenario = {
  name: 'nonces-elsewhere',
  fault: 'the key sends on its own, ~1/s',
  async inject(ctx) {
    let accepted = 0;
    let refused = 0;
    const until = Date.now() + ctx.size.faultMs;
    for (let j = 0; Date.now() < until; j++) {
      try {
        // Well above the relayer's prices: it replaces whatever the relayer has in the pool at that nonce.
        const hash = await ctx.chain.sendRaw(RELAYER_KEY, {
          to: RECIPIENT,
          value: FOREIGN_BASE + BigInt(j),
          maxFeePerGas: 100n * GWEI,
        });
        ctx.foreign.add(hash.toLowerCase());
        accepted++;
      } catch {
        refused++;
      }
      await sleep(1000);
    }
    return { foreignSent: accepted, [`${INFO}refusedByNode`]: refused };
  },
};

const sequencer: Scenario = {
  name: 'sequencer',
  fault: 'no-mempool sequencer (gaps refused, no pool)',
  chain: 'sequencer',
  service: { network: { tags: ['no-mempool'] } },
  // The chain is the fault: sends race to it out of nonce order and it keeps nothing for later.
  async inject(ctx) {
    // Counted three quarters into the traffic (the fault starts a quarter in).
    await sleep(ctx.size.spreadMs / 2);
    const offered = ctx.chain.sequencer!.offered;
    // Proof the traffic went through the sequencer; how often it refused a gap depends on how the relayer orders its
    // broadcasts, so that is reported, not required.
    return {
      offered: offered.length,
      [`${INFO}refusedNonceTooHigh`]: offered.filter((o) => o.refused?.startsWith('nonce too high')).length,
    };
  },
};

const idempotentRace: Scenario = {
  name: 'idempotency-race',
  fault: '3 racing POSTs per Idempotency-Key',
  copies: 3,
  // The race is the fault (replays prove the copies met one key): it runs with every send.
  async inject(ctx) {
    await sleep(ctx.size.spreadMs / 2);
    return {};
  },
};

/** Issue 40: the first URL answers every broadcast with its hash and forwards none; the second is healthy. */
export const swallowingProvider: Scenario = {
  name: 'swallowing-rpc',
  fault: '1 of 2 URLs (the first) accepts broadcasts and forwards none',
  rpcUrls: 2,
  async inject(ctx) {
    const bad = ctx.proxies[0]!;
    bad.mode = { kind: 'swallow', answer: 'hash' };
    await sleep(ctx.size.faultMs);
    // In a short run the traffic may not have broadcast yet: swallow until one was (5 s more at most).
    for (let i = 0; i < 50 && bad.counts.swallowed === 0; i++) await sleep(100);
    bad.mode = { kind: 'pass' };
    return { swallowed: bad.counts.swallowed };
  },
};

/** The relayer's next transaction from the store (its nonce the chain's next), with its raw signed bytes. */
function nextInStore(ctx: Ctx, nonce: number): Hex | undefined {
  const rows = ctx.service
    .db()
    .prepare("SELECT record FROM transactions WHERE nonce = ? AND status IN ('sent', 'submitted', 'pending')")
    .pluck()
    .all(nonce) as string[];
  return rows.map((r) => JSON.parse(r) as { raw?: Hex }).find((r) => r.raw)?.raw;
}

/**
 * Issue 40: anvil holds the relayer's next transaction in `queued` although its nonce is next (what the automine race
 * foundry-rs/foundry#10122 does by chance, made certain with anvil_setNonce): every re-broadcast of it is answered
 * "already known", and everything above it queues behind it.
 */
export const heldInQueue: Scenario = {
  name: 'held-in-queue',
  fault: "the next nonce's transaction held in anvil's queued pool",
  async inject(ctx) {
    let held = 0;
    const until = Date.now() + Math.max(ctx.size.faultMs, 5_000);
    // The relayer's broadcasts wait at the proxies meanwhile: only the test's copy reaches anvil. Once the pool has
    // none of the relayer's (a block mined them), its next nonce is the chain's.
    for (const p of ctx.proxies) p.hold('eth_sendRawTransaction');
    try {
      while (held === 0 && Date.now() < until) {
        await sleep(200);
        const next = await ctx.chain.nonce(RELAYER_ADDRESS as Hex, 'latest');
        const raw =
          next > 0 && (await ctx.chain.nonce(RELAYER_ADDRESS as Hex, 'pending')) === next
            ? nextInStore(ctx, next)
            : undefined;
        if (!raw) continue;
        await ctx.chain.rpc('anvil_setNonce', [RELAYER_ADDRESS, numberToHex(next - 1)]);
        await ctx.chain.rpc('eth_sendRawTransaction', [raw]).catch(() => undefined);
        await ctx.chain.rpc('anvil_setNonce', [RELAYER_ADDRESS, numberToHex(next)]);
        const pool = await ctx.chain.rpc<{ queued: Record<string, Record<string, unknown>> }>('txpool_content');
        held = Object.values(pool.queued).filter((byNonce) => byNonce[String(next)]).length;
      }
    } finally {
      for (const p of ctx.proxies) p.release();
    }
    await sleep(ctx.size.faultMs);
    return { heldInQueued: held };
  },
};

/**
 * Several faults in turn under one stream of sends, against one service (one start-up: the short version's budget).
 * The setups are merged: every part's service settings, the most RPC URLs, a persisted chain if a part needs one.
 */
export function inTurn(name: string, parts: Scenario[], copies = 1): Scenario {
  if (parts.some((p) => p.chain === 'sequencer')) throw new Error('the sequencer chain runs alone');
  const service = parts.reduce<NonNullable<Scenario['service']>>(
    (acc, p) => ({
      confirmations: Math.max(acc.confirmations ?? 1, p.service?.confirmations ?? 1),
      policies: { ...acc.policies, ...p.service?.policies },
      env: { ...acc.env, ...p.service?.env },
      network: { ...acc.network, ...p.service?.network },
    }),
    {},
  );
  return {
    name,
    fault: parts.map((p) => p.name).join(', then '),
    chain: parts.some((p) => p.chain === 'persisted') ? 'persisted' : undefined,
    rpcUrls: Math.max(...parts.map((p) => p.rpcUrls ?? 1)),
    service,
    copies,
    sendExtra: (i, size) => Object.assign({}, ...parts.map((p) => p.sendExtra?.(i, size) ?? {})),
    async prepare(ctx) {
      for (const p of parts) await p.prepare?.(ctx);
    },
    async inject(ctx) {
      const evidence: Record<string, number> = {};
      for (const p of parts) {
        for (const [k, v] of Object.entries(await p.inject(ctx)))
          evidence[k.startsWith(INFO) ? `${INFO}${p.name}.${k.slice(INFO.length)}` : `${p.name}.${k}`] = v;
        await sleep(500);
      }
      return evidence;
    },
  };
}

export const ALL: Scenario[] = [
  feeSpike,
  flakyRpc,
  allRpcDown,
  anvilRestart,
  serviceKill,
  noncesBehindBack,
  sequencer,
  idempotentRace,
  swallowingProvider,
  heldInQueue,
];
