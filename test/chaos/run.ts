// Runs one chaos scenario end to end: anvil behind fault proxies, the service as a process, the traffic and the fault
// at the same time, then the drain (every record final) and the verdict. Everything started is stopped, pass or fail.
import { startChain, startSequencerChain, type ChaosChain } from './chain.ts';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.ts';
import { poolKeys, startChaosService, type ChaosService, type ServiceOptions } from './service.ts';
import { sampleSchedule, type ScheduleReport } from './schedule-sampler.ts';
import { REVERTER, runLoad, type SendOutcome, type Traffic } from './load.ts';
import { numberToHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { revertData, revertingCode } from '../support/anvil.ts';
import { verify, type Verdict } from './verify.ts';
import { drain, watchBacklog, type Backlog } from './drain.ts';

export interface Size {
  sends: number;
  /** Sends are spread over this long; the fault runs inside this window. */
  spreadMs: number;
  /** How long the fault lasts. */
  faultMs: number;
  /** When the fault starts, after the first send (default: a quarter of spreadMs). */
  leadMs?: number;
}

export interface Ctx {
  chain: ChaosChain;
  proxies: RpcProxy[];
  service: ChaosService;
  size: Size;
  /** Hashes of transactions the test sent itself with the relayer's key. */
  foreign: Set<string>;
  traffic: Traffic;
  /** The relayer's keys' addresses: one, or a key pool's in `signer_ids` order. */
  addresses: Hex[];
}

export interface Scenario {
  name: string;
  /** The fault, in a few words, for the table. */
  fault: string;
  /** anvil saves its state every second (the anvil-kill scenario); or a no-mempool sequencer in front of it. */
  chain?: 'persisted' | 'sequencer';
  rpcUrls?: number;
  service?: Omit<ServiceOptions, 'rpcUrls' | 'pool'>;
  /** The relayer is a key pool of this many keys (issue 44), each funded with POOL_KEY_WEI. */
  pool?: number;
  /** Set when the scenario cannot run yet: the reason, naming what is missing. */
  skip?: string;
  /** POSTs per send sharing an Idempotency-Key. */
  copies?: number;
  /** More fields for send i of a run of this size. */
  sendExtra?(i: number, size: Size): Record<string, unknown>;
  /** Before the traffic starts. */
  prepare?(ctx: Ctx): Promise<void>;
  /** Runs beside the traffic, from leadMs on; resolves once the fault is over, with proof that it hit (counts that must be > 0). */
  inject(ctx: Ctx): Promise<Record<string, number>>;
  /** The scenario's own verdict once drained (beyond verify.ts's): what went wrong, empty when nothing. */
  judge?(ctx: Ctx, outcomes: SendOutcome[]): Promise<string[]>;
}

export interface Row extends Verdict {
  scenario: string;
  fault: string;
  sends: number;
  acked: number;
  refused: number;
  unknown: number;
  refusals: Record<string, number>;
  evidence: Record<string, number>;
  schedule: ScheduleReport;
  /** The fault's backlog (non-final when it ended) and how long until it was final; the rest, from the last answer. */
  drainMs: { backlog: Backlog; afterLastSend: number };
  totalMs: number;
  /** What the scenario's judge found wrong. */
  judged: string[];
}

/** Each key of a pool: as funded as anvil's own accounts. */
const POOL_KEY_WEI = 10n ** 22n;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The service's last warnings and errors (pino lines, level ≥ 40), for a run that did not drain. */
function serviceWarnings(output: string): string {
  const lines = output.split('\n').filter((l) => /"level":(4|5|6)\d/.test(l));
  return `service warnings and errors (last 20 of ${lines.length}):\n${lines.slice(-20).join('\n')}`;
}

function summarize(outcomes: SendOutcome[]) {
  const refusals: Record<string, number> = {};
  for (const o of outcomes.filter((x) => x.kind !== 'acked')) {
    const key = `${o.statuses.join('/')} ${o.codes[0] ?? ''}`.trim();
    refusals[key] = (refusals[key] ?? 0) + 1;
  }
  const count = (k: SendOutcome['kind']) => outcomes.filter((o) => o.kind === k).length;
  return { acked: count('acked'), refused: count('refused'), unknown: count('unknown'), refusals };
}

export async function runScenario(s: Scenario, size: Size, drainTimeoutMs = 180_000): Promise<Row> {
  const started = Date.now();
  const stops: Array<() => Promise<void>> = [];
  try {
    const chain =
      s.chain === 'sequencer' ? await startSequencerChain() : await startChain({ persist: s.chain === 'persisted' });
    stops.push(() => chain.stop());
    await chain.rpc('anvil_setCode', [REVERTER, revertingCode(revertData.error('chaos: refused by the contract'))]);
    const proxies = await Promise.all(Array.from({ length: s.rpcUrls ?? 1 }, () => startRpcProxy(chain.url())));
    stops.push(...proxies.map((p) => () => p.close()));
    const keys = s.pool ? poolKeys(s.pool) : undefined;
    const addresses = (keys ?? poolKeys(1)).map((k) => privateKeyToAccount(k).address);
    for (const a of addresses.slice(1)) await chain.rpc('anvil_setBalance', [a, numberToHex(POOL_KEY_WEI)]);
    const service = await startChaosService({
      ...s.service,
      rpcUrls: proxies.map((p) => p.url),
      ...(keys ? { pool: keys } : {}),
    });
    stops.push(() => service.stop());
    const ctx: Ctx = { chain, proxies, service, size, foreign: new Set(), traffic: { inFlight: 0 }, addresses };
    const sampler = sampleSchedule(service.db);
    let schedule: ScheduleReport | undefined;
    try {
      await s.prepare?.(ctx);
      let backlog: Promise<Backlog> | undefined;
      let faultOver = false;
      const fault = async () => {
        await sleep(size.leadMs ?? size.spreadMs / 4);
        try {
          const hit = await s.inject(ctx);
          backlog = watchBacklog(service.db, drainTimeoutMs);
          backlog.catch(() => {});
          return hit;
        } finally {
          // Thrown or not: the traffic stops waiting for it.
          faultOver = true;
        }
      };
      let lastAnswer = 0;
      const load = async () => {
        const outcomes = await runLoad({
          count: size.sends,
          spreadMs: size.spreadMs,
          copies: s.copies,
          url: service.url,
          traffic: ctx.traffic,
          extra: s.sendExtra && ((i) => s.sendExtra!(i, size)),
          keepGoing: () => !faultOver,
        });
        lastAnswer = Date.now();
        return outcomes;
      };
      const [outcomes, hit] = await Promise.all([load(), fault()]);
      // Racing copies of one send: the answers that replayed the first prove they met one key.
      const evidence = (s.copies ?? 1) > 1 ? { ...hit, replayed: outcomes.reduce((n, o) => n + o.replayed, 0) } : hit;
      await drain(service.db, drainTimeoutMs);
      const drainMs = { backlog: await backlog!, afterLastSend: Date.now() - lastAnswer };
      schedule = sampler.stop();
      const verdict = await verify(chain, service.url(), outcomes, ctx.foreign, addresses);
      const judged = (await s.judge?.(ctx, outcomes)) ?? [];
      return {
        scenario: s.name,
        fault: s.fault,
        sends: outcomes.length,
        ...summarize(outcomes),
        evidence,
        ...verdict,
        schedule,
        drainMs,
        totalMs: Date.now() - started,
        judged,
      };
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${serviceWarnings(service.output())}`, { cause: err });
    } finally {
      schedule ??= sampler.stop();
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}
