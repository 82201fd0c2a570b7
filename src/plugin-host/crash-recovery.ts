// What becomes of a plugin call when the runtime process dies under it or before it, so that a tenant crashing the
// runtime costs its neighbours latency, not answers: a call arriving during a restart waits for it (bounded), and a
// call killed in flight by a crash the runtime blamed on another plugin is replayed, only when no host call (api/kv,
// which can send a transaction) can have run for it. Anything else answers as before.
import type { ChildProcess } from 'node:child_process';
import { PluginError } from '../errors.ts';
import { runtimeError } from '../../runtime/common/errors.ts';
import { unavailable } from './answer-check.ts';
import type { GoneCall } from './call-protocol.ts';

/**
 * Replays of one call at most: as many crashes as quarantine one offender (PLUGIN_QUARANTINE_CRASHES' default), whose
 * calls held during a restart may crash the next runtime again.
 */
const MAX_REPLAYS = 3;
/** How long a call arriving during a restart waits for the next runtime before answering 503 as before. */
const RESTART_HOLD_MS = 5_000;

/** A call that another plugin's crash killed before any host call ran for it: safe to send again. */
class KilledByNeighbour extends Error {
  readonly answer: Error;
  constructor(answer: Error) {
    super(answer.message);
    this.answer = answer;
  }
}

/** What the supervisor knows of a runtime process that has just gone. */
export interface Crash {
  /** Calls the OOM report named (running in the isolate that exhausted its memory). */
  oomCalls: Set<number>;
  /** Plugins the OOM reports blamed; empty when the process died unexplained (kill -9, a stalled worker). */
  blamed: Set<string>;
  closing: boolean;
}

/** Why a call still waiting on a process that is gone fails, or that it may be replayed. */
export function goneError(crash: Crash, id: number, call: GoneCall): Error {
  if (crash.oomCalls.has(id)) return new PluginError(runtimeError('memoryCrash'));
  if (crash.closing) return unavailable('the service is shutting down');
  const answer = unavailable('the plugin runtime restarted while this call was running; retry');
  // A call of the blamed plugin is not innocent (it would likely crash the next runtime too); an unexplained death
  // blames nobody, so nothing is replayed after it.
  const innocent = crash.blamed.size > 0 && !crash.blamed.has(call.plugin);
  return innocent && !call.hostCalls ? new KilledByNeighbour(answer) : answer;
}

export interface RecoveryDeps {
  /** The runtime process serving now, if any. */
  active(): ChildProcess | undefined;
  /** True while a runtime that served is being replaced (not during the first start, nor while closing). */
  restarting(): boolean;
  /** Resolves when a runtime serves. */
  whenReady(): Promise<void>;
  /** Calls held at once at most (the runtime's own queue bound); past it, 503 at once. */
  maxHeld: number;
  /** How long a call arriving during a restart waits for the next runtime (default RESTART_HOLD_MS). */
  holdMs?: number;
}

export interface CrashRecovery<T> {
  /** Runs one call through crashes: held during a restart, replayed after a neighbour's crash when that is safe. */
  run(send: (proc: ChildProcess) => Promise<T>): Promise<T>;
  /** The service is closing: held calls stop waiting (and answer 503), none is held from now on. */
  release(): void;
}

export function createCrashRecovery<T>(deps: RecoveryDeps): CrashRecovery<T> {
  let held = 0;
  let released = false;
  let wake = () => {};
  const closing = new Promise<void>((resolve) => (wake = resolve));
  /** One wait per restart, shared by the calls held for it (a runtime that never returns collects no waiters). */
  let nextReady: Promise<void> | undefined;
  const whenReady = () => (nextReady ??= deps.whenReady().finally(() => (nextReady = undefined)));

  /** The serving runtime, waiting at most RESTART_HOLD_MS for it while a restart is under way. */
  async function serving(): Promise<ChildProcess | undefined> {
    const now = deps.active();
    if (now || released || !deps.restarting() || held >= deps.maxHeld) return now;
    held++;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        whenReady(),
        closing,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, deps.holdMs ?? RESTART_HOLD_MS))),
      ]);
    } finally {
      clearTimeout(timer);
      held--;
    }
    return deps.active();
  }

  return {
    async run(send) {
      for (let replays = 0; ; replays++) {
        // The runtime serving (the usual case) without an await of its own.
        const proc = deps.active() ?? (await serving());
        if (!proc)
          throw unavailable(released ? 'the service is shutting down' : 'the plugin runtime is restarting; retry');
        try {
          return await send(proc);
        } catch (err) {
          if (!(err instanceof KilledByNeighbour)) throw err;
          if (replays >= MAX_REPLAYS) throw err.answer;
        }
      }
    },
    release() {
      released = true;
      wake();
    },
  };
}
