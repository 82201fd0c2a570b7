// isolated-vm plumbing: one isolate "generation" per plugin bundle per worker, the contexts (slots) in it, and the
// host's entries into it. Never hands an ivm handle to plugin code: the host Reference enters a context only as a
// closure argument of the prelude.
//
// Two rules keep a worker thread from ever waiting on a plugin for long:
// - the isolate runs plugin code only inside an entry the host started, with a CPU timeout, and the host counts
//   them (`gen.running`);
// - a synchronous isolated-vm call is made only while that count is zero: for our own code (the prelude, the module
//   wrapper), and for the first entry of a call, cut at SYNC_SLICE_MS (`enterFirst`); every other entry of plugin
//   code is async (`enter`).
import ivm from 'isolated-vm';
import { randomBytes } from 'node:crypto';
import { writeSync } from 'node:fs';
import { PRELUDE } from '../isolate/prelude.ts';
import { OOM_FD, type OomReport, type RuntimeLimits } from '../protocol.ts';

/** What the isolate sends the host: `(kind, seq, a, b, c, d)`, all primitives once copied; checked by the receiver. */
export type SandboxListener = (kind: unknown, seq: unknown, a: unknown, b: unknown, c: unknown, d: unknown) => void;

/** What a context's messages go to: the call it serves. */
export interface SlotOwner {
  receive: SandboxListener;
}

/** One context with the prelude and the plugin module loaded; serves one call at a time. */
export interface Slot {
  gen: Generation;
  context: ivm.Context;
  run: ivm.Reference;
  deliver: ivm.Reference;
  collect: ivm.Reference;
  /**
   * The call this context serves, null between calls (its messages then go nowhere). The call itself, never a
   * closure made for it: a closure made per call and stored on this long-lived object kept every call's objects alive
   * through the worker's scavenges (measured at one connection: 40–50 % of what a worker allocated survived each
   * scavenge and was promoted; with the call stored, ~0.1 %, as the floor's worker).
   */
  owner: SlotOwner | null;
  /** Bytes of buffers and WebAssembly memory the module reserved while loading (see prelude/guards.ts). */
  reservedAtLoad: number;
}

/** An isolate running one bundle (plugin id + hash). Isolates are never shared between plugins. */
export interface Generation {
  plugin: string;
  hash: string;
  memoryMb: number;
  isolate: ivm.Isolate;
  script: Promise<ivm.Script>;
  free: Slot[];
  inFlight: Set<number>;
  contexts: number;
  /** Host entries in flight (queued or running in the isolate). */
  running: number;
  /** `isolate.cpuTime` when `running` last dropped to zero: growth while idle means code we did not start. */
  idleCpu: bigint | undefined;
  /** Consecutive samples that saw such growth (one can be a brief internal task read mid-way, in wall time). */
  unattended: number;
  retired: boolean;
  /** Why it was disposed; calls still running in it use this to answer. */
  dead: 'TIMEOUT' | 'MEMORY' | 'RETIRED' | 'ROGUE' | undefined;
  inspect: boolean;
  lastUsed: number;
  /** Characters of the bundle: a large one is never compiled synchronously on the worker thread. */
  codeSize: number;
  /** Calls start with a synchronous entry; false for good once one ran past SYNC_SLICE_MS. */
  syncFirst: boolean;
  /** The last heap read (runtime/worker/generations.ts heapNow): bytes used, the limit, `isolate.cpuTime` then. */
  heapSeen: { used: number; limit: number; cpu: bigint } | undefined;
}

const SYNC_CODE_LIMIT = 256 * 1024;

export interface LoadInfo {
  hasHandler: boolean;
  settings: string;
}

let seeds = Buffer.alloc(0);
let seedAt = 0;
/**
 * 32 bytes of the host's CSPRNG, as hex: keys the isolate's crypto.getRandomValues (runtime/isolate/prelude/crypto.ts).
 * Drawn 256 seeds at a time: one randomBytes per call cost ~8 µs of the worker's CPU; each seed is still used once.
 */
export function randomSeed(): string {
  if (seedAt + 32 > seeds.length) {
    seeds = randomBytes(32 * 256);
    seedAt = 0;
  }
  seedAt += 32;
  return seeds.toString('hex', seedAt - 32, seedAt);
}

export function createGeneration(
  plugin: string,
  hash: string,
  code: string,
  memoryMb: number,
  inspect = false,
): Generation {
  const gen = {} as Generation;
  const isolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    // A catastrophic OOM leaves the process unusable (measured: it hangs rather than aborts). Report the calls
    // running in this isolate on fd 4, synchronously, then end the process; the HTTP process restarts it.
    onCatastrophicError: () => {
      const report: OomReport = { oom: true, plugin, hash, calls: [...gen.inFlight], inspect: gen.inspect };
      try {
        writeSync(OOM_FD, JSON.stringify(report) + '\n');
      } finally {
        process.kill(process.pid, 'SIGKILL');
      }
    },
  });
  Object.assign(gen, {
    plugin,
    hash,
    memoryMb,
    isolate,
    script: isolate.compileScript(code, { filename: `plugins/${plugin}.js` }),
    free: [],
    inFlight: new Set<number>(),
    contexts: 0,
    running: 0,
    idleCpu: undefined,
    unattended: 0,
    retired: false,
    dead: undefined,
    inspect,
    lastUsed: Date.now(),
    codeSize: code.length,
    syncFirst: true,
    heapSeen: undefined,
  });
  // Avoid an unhandled rejection if nobody awaits the script (e.g. the generation is disposed first).
  gen.script.catch(() => {});
  return gen;
}

export function disposeGeneration(gen: Generation, reason: NonNullable<Generation['dead']>): void {
  if (gen.dead) return;
  gen.dead = reason;
  gen.free.length = 0;
  try {
    gen.isolate.dispose();
  } catch {
    // already disposed by isolated-vm itself (memory limit)
  }
}

function markIdle(gen: Generation): void {
  gen.unattended = 0;
  if (gen.running !== 0 || gen.dead) return;
  try {
    gen.idleCpu = gen.isolate.cpuTime;
  } catch {
    gen.idleCpu = undefined;
  }
}

/**
 * How plugin code runs, but for a call's first entry (`enterFirst`): an async apply of a prelude function, bounded by
 * `timeoutMs` of isolate time (microtasks included), counted while it is queued or running.
 */
export async function enter(gen: Generation, fn: ivm.Reference, args: unknown[], timeoutMs: number): Promise<unknown> {
  gen.running++;
  gen.idleCpu = undefined;
  try {
    return await fn.apply(undefined, args, {
      arguments: { copy: true },
      result: { copy: true },
      timeout: Math.max(1, Math.ceil(timeoutMs)),
    });
  } finally {
    gen.running--;
    markIdle(gen);
  }
}

/**
 * CPU a call's first entry may take synchronously. Entering on the worker's own thread saves isolated-vm's two thread
 * hops (~0.1 ms of a call's latency, and CPU on both threads), but holds the worker's event loop meanwhile: the slice
 * keeps that short, far under the watchdog's 3 s.
 */
export const SYNC_SLICE_MS = 25;

/**
 * How `enterFirst` went: ran (its messages follow), ended the call within the entry (`done`: the prelude's held
 * 'done' message, its arguments after the sequence number), cut at the slice (nothing it did left the isolate), or
 * failed.
 */
export type FirstEntry = 'ran' | { done: unknown[] } | 'sliced' | { error: unknown };

/**
 * A call's first entry, synchronous while the isolate is idle. Nothing the entry asks of the host is seen before it
 * returns (isolated-vm queues the prelude's messages for the worker's event loop), so an entry cut at the slice has
 * had no effect outside the isolate: the caller drops its context and its queued messages and starts the call again
 * with `enter`. A plugin cut once starts its calls asynchronously from then on.
 */
/** `args`: those of the prelude's `run`, its last (`hold`) true. */
export function enterFirst(slot: Slot, args: unknown[], timeoutMs: number): FirstEntry {
  const gen = slot.gen;
  const sliced = timeoutMs > SYNC_SLICE_MS;
  const timeout = Math.max(1, Math.ceil(sliced ? SYNC_SLICE_MS : timeoutMs));
  gen.running++;
  gen.idleCpu = undefined;
  try {
    // The prelude runs the entry's microtasks before returning, so a call that needs nothing from the host has
    // ended here; `collect` hands its held 'done' over in a second short entry. That one runs none of the plugin's
    // code (the queue of microtasks is empty once an entry returns, and the held values are primitives), so it needs
    // no deadline: each isolated-vm timeout is a timer on a shared thread, a measured ~3 µs of CPU per entry.
    slot.run.applySync(undefined, args, { arguments: { copy: true }, timeout });
    const done: unknown = slot.collect.applySync(undefined, [], { result: { copy: true } });
    // A string: an 'ok' with no logs and nothing reserved (runtime/isolate/prelude/entries.ts `finish`).
    if (typeof done === 'string') return { done: ['ok', done, '', 0] };
    return Array.isArray(done) ? { done } : 'ran';
  } catch (error) {
    if (!sliced || gen.dead || !/execution timed out/i.test((error as Error)?.message ?? '')) return { error };
    gen.syncFirst = false;
    return 'sliced';
  } finally {
    gen.running--;
    markIdle(gen);
  }
}

/**
 * True when the isolate kept running code while the host had no entry in it (by more than `slackNs` on two
 * samples in a row): something escaped the entry discipline. The caller disposes such an isolate. One sample is
 * not enough: isolated-vm reports a task still running in wall time, and a brief internal one (a handle released)
 * can look long on a busy machine.
 */
export function ranUnattended(gen: Generation, slackNs: bigint): boolean {
  if (gen.running !== 0 || gen.dead || gen.idleCpu === undefined) return false;
  try {
    const grown = gen.isolate.cpuTime - gen.idleCpu > slackNs;
    gen.unattended = grown ? gen.unattended + 1 : 0;
    return gen.unattended >= 2;
  } catch {
    return false;
  }
}

/** The prelude's `toHost`: messages of a context go to the call its slot serves, if any. */
function hostReference(slot: { owner: SlotOwner | null }): ivm.Reference {
  return new ivm.Reference((kind: unknown, seq: unknown, a: unknown, b: unknown, c: unknown, d: unknown) => {
    slot.owner?.receive(kind, seq, a, b, c, d);
  });
}

/**
 * Creates a context, runs the prelude and the plugin module in it (`envJson`: the plugin's process.env, runtime/process/plugin-env.ts). Our own code (prelude, module wrapper) runs
 * synchronously when the isolate is idle, else asynchronously; the module's top-level code always runs in an
 * async entry bounded by `timeoutMs`.
 */
export async function createSlot(
  gen: Generation,
  limits: RuntimeLimits,
  timeoutMs: number,
  envJson = '{}',
): Promise<{ slot: Slot; info: LoadInfo }> {
  const script = await gen.script;
  const slot = { gen, owner: null, reservedAtLoad: 0 } as unknown as Slot;
  const args = [hostReference(slot), new ivm.ExternalCopy(limits).copyInto(), gen.memoryMb];
  // Synchronous only for small bundles: creating the factory parses the whole bundle, and a 2 MB one (a published
  // plugin with the Stellar SDK) would hold the worker thread past its watchdog.
  const idle = gen.running === 0 && gen.codeSize < SYNC_CODE_LIMIT;
  try {
    let factory: ivm.Reference;
    let init: ivm.Reference;
    if (idle) {
      slot.context = gen.isolate.createContextSync();
      gen.contexts++;
      const exported = slot.context.evalClosureSync(PRELUDE, args, { result: { reference: true } }) as ivm.Reference;
      init = exported.getSync('init', { reference: true }) as ivm.Reference;
      slot.run = exported.getSync('run', { reference: true }) as ivm.Reference;
      slot.deliver = exported.getSync('deliver', { reference: true }) as ivm.Reference;
      slot.collect = exported.getSync('collect', { reference: true }) as ivm.Reference;
      exported.release();
      // Evaluates `(function (module, exports) {…})`: creates the factory, runs none of the plugin's code.
      factory = script.runSync(slot.context, { reference: true, timeout: 1000 }) as ivm.Reference;
      markIdle(gen);
    } else {
      // Counted as an entry: a synchronous one (enterFirst) must not queue behind this on the worker's thread.
      gen.running++;
      try {
        slot.context = await gen.isolate.createContext();
        gen.contexts++;
        const exported = (await slot.context.evalClosure(PRELUDE, args, {
          result: { reference: true },
        })) as ivm.Reference;
        init = (await exported.get('init', { reference: true })) as ivm.Reference;
        slot.run = (await exported.get('run', { reference: true })) as ivm.Reference;
        slot.deliver = (await exported.get('deliver', { reference: true })) as ivm.Reference;
        slot.collect = (await exported.get('collect', { reference: true })) as ivm.Reference;
        exported.release();
        factory = (await script.run(slot.context, { reference: true, timeout: 1000 })) as ivm.Reference;
      } finally {
        gen.running--;
        markIdle(gen);
      }
    }
    const text = await enter(gen, init, [factory.derefInto(), randomSeed(), envJson], timeoutMs);
    init.release();
    factory.release();
    const info = readLoadInfo(text);
    slot.reservedAtLoad = info.reserved;
    return { slot, info };
  } catch (err) {
    releaseSlot(slot);
    throw new LoadError(err);
  }
}

function readLoadInfo(text: unknown): LoadInfo & { reserved: number } {
  if (typeof text !== 'string' || text.length > 256 * 1024) throw new Error('the sandbox reported its module badly');
  const parsed = JSON.parse(text) as { hasHandler?: unknown; reserved?: unknown; settings?: unknown };
  return {
    hasHandler: parsed.hasHandler === true,
    reserved: typeof parsed.reserved === 'number' && parsed.reserved >= 0 ? parsed.reserved : 0,
    settings: JSON.stringify(parsed.settings ?? null),
  };
}

/** The plugin's module failed to evaluate (top-level throw) or the context could not be set up. */
export class LoadError extends Error {
  constructor(cause: unknown) {
    super((cause as Error)?.message ?? String(cause), { cause });
    this.name = 'LoadError';
  }
}

/** Releases a context (isolated-vm schedules the disposal; nothing waits on the isolate). */
export function releaseSlot(slot: Slot): void {
  slot.owner = null;
  try {
    slot.context?.release();
  } catch {
    // isolate already gone
  }
}
