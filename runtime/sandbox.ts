// isolated-vm plumbing: one isolate "generation" per plugin bundle per worker, and the contexts (slots) in it.
// Never hands an ivm handle to plugin code: the host Reference enters a context only as a closure argument.
import ivm from 'isolated-vm';
import { writeSync } from 'node:fs';
import { PRELUDE } from './prelude.ts';
import { OOM_FD, type OomReport, type RuntimeLimits, type TraceEntry } from './protocol.ts';

/** The call a slot is serving right now; host calls from the sandbox are charged to it. */
export interface ActiveCall {
  callId: number;
  plugin: string;
  requestId: string;
  deadline: number;
  emitTraces: boolean;
  apiCalls: number;
  traces: TraceEntry[];
}

/** One context with the prelude and the plugin module loaded; serves one call at a time. */
export interface Slot {
  context: ivm.Context;
  run: ivm.Reference;
  call: ActiveCall | null;
}

/** An isolate running one bundle (plugin id + hash). Isolates are never shared between plugins. */
export interface Generation {
  plugin: string;
  hash: string;
  isolate: ivm.Isolate;
  script: Promise<ivm.Script>;
  free: Slot[];
  inFlight: Set<number>;
  contexts: number;
  retired: boolean;
  /** Why it was disposed; calls still running in it use this to answer. */
  dead: 'TIMEOUT' | 'MEMORY' | 'RETIRED' | undefined;
  inspect: boolean;
  lastUsed: number;
}

export type HostBridge = (slot: Slot, op: string, argsJson: string) => Promise<string>;

export function createGeneration(plugin: string, hash: string, code: string, memoryMb: number, inspect = false): Generation {
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
    isolate,
    script: isolate.compileScript(code, { filename: `plugins/${plugin}.js` }),
    free: [],
    inFlight: new Set<number>(),
    contexts: 0,
    retired: false,
    dead: undefined,
    inspect,
    lastUsed: Date.now(),
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

/**
 * Creates a context, runs the prelude and the plugin module in it. Returns the slot and what `init`
 * reported (`[hasHandler, settingsJson]`). Plugin top-level code runs here, bounded by `timeoutMs` CPU time.
 */
export async function createSlot(gen: Generation, limits: RuntimeLimits, bridge: HostBridge, timeoutMs: number): Promise<{ slot: Slot; info: [boolean, string] }> {
  const script = await gen.script;
  // Setup uses the synchronous API: each async isolated-vm call is a thread hop (45-265 us measured), and
  // fresh mode pays this per call. Plugin top-level code cannot await, so the CPU timeout bounds it.
  const context = gen.isolate.createContextSync();
  gen.contexts++;
  const slot: Slot = { context, run: undefined as unknown as ivm.Reference, call: null };
  const hostRef = new ivm.Reference((op: string, argsJson: string) => bridge(slot, op, argsJson));
  try {
    const exported = context.evalClosureSync(PRELUDE, [hostRef, new ivm.ExternalCopy(limits).copyInto()], {
      result: { reference: true },
    }) as ivm.Reference;
    const init = exported.getSync('init', { reference: true }) as ivm.Reference;
    slot.run = exported.getSync('run', { reference: true }) as ivm.Reference;
    exported.release();
    const factory = script.runSync(context, { reference: true, timeout: timeoutMs }) as ivm.Reference;
    const info = init.applySync(undefined, [factory.derefInto()], { result: { copy: true }, timeout: timeoutMs }) as [boolean, string];
    init.release();
    factory.release();
    return { slot, info };
  } catch (err) {
    releaseSlot(slot);
    throw new LoadError(err);
  }
}

/** The plugin's module failed to evaluate (top-level throw) or the context could not be set up. */
export class LoadError extends Error {
  constructor(cause: unknown) {
    super((cause as Error)?.message ?? String(cause), { cause });
    this.name = 'LoadError';
  }
}

export function releaseSlot(slot: Slot): void {
  slot.call = null;
  try {
    slot.context.release();
  } catch {
    // isolate already gone
  }
}

/** One call into a slot: `[ok, resultOrErrorJson, logsJson]`, all strings made inside the isolate. */
export async function runInSlot(slot: Slot, input: string, config: string, emitLogs: boolean, timeoutMs: number): Promise<[boolean, string, string]> {
  return (await slot.run.apply(undefined, [input, config, emitLogs], {
    arguments: { copy: true },
    result: { promise: true, copy: true },
    timeout: timeoutMs,
  })) as [boolean, string, string];
}
