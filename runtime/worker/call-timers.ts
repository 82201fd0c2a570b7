// A plugin call's timers (the sandbox's setTimeout/setInterval, runtime/isolate/prelude/timers.ts): each is a host timer
// under a hold of the call's scope, answered by the worker itself when it fires, cancelled when the call ends.
import type { CallScope, Hold } from './call-scope.ts';

/** What a fired timer's request is answered with. */
const TIMER_FIRED = '{"ok":true,"value":null}';

export interface CallTimers {
  /** Timers pending (each holds the scope once). */
  readonly size: number;
  start(id: unknown, ms: unknown): void;
  stop(id: unknown): void;
}

/** A class, not closures: every call makes one, and most start no timer. */
class Timers implements CallTimers {
  // Made at the first timer.
  #pending: Map<number, { handle: NodeJS.Timeout; hold: Hold }> | undefined;
  readonly #scope: CallScope;
  readonly #maxTimers: number;
  readonly #deliver: (id: number, reply: string) => void;

  constructor(scope: CallScope, maxTimers: number, deliver: (id: number, reply: string) => void) {
    this.#scope = scope;
    this.#maxTimers = maxTimers;
    this.#deliver = deliver;
  }
  get size(): number {
    return this.#pending?.size ?? 0;
  }
  start(id: unknown, ms: unknown): void {
    const pending = (this.#pending ??= new Map());
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || typeof ms !== 'number' || pending.has(id)) return;
    // The prelude counts too: past the cap a timer is simply never answered (it could not fire before the answer anyway).
    if (pending.size >= this.#maxTimers) return;
    const hold = this.#scope.hold(() => clearTimeout(handle));
    if (!hold) return;
    const deliver = this.#deliver;
    const handle = setTimeout(
      () => {
        pending.delete(id);
        deliver(id, TIMER_FIRED);
        hold.release();
      },
      Math.min(Math.max(1, ms), 2 ** 31 - 1),
    );
    pending.set(id, { handle, hold });
  }
  stop(id: unknown): void {
    const t = typeof id === 'number' ? this.#pending?.get(id) : undefined;
    if (!t) return;
    this.#pending!.delete(id as number);
    clearTimeout(t.handle);
    t.hold.release();
  }
}

/** `deliver(id, reply)` queues a fired timer's reply for the call's next entry. */
export function createCallTimers(
  scope: CallScope,
  maxTimers: number,
  deliver: (id: number, reply: string) => void,
): CallTimers {
  return new Timers(scope, maxTimers, deliver);
}
