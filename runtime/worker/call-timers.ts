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

/** `deliver(id, reply)` queues a fired timer's reply for the call's next entry. */
export function createCallTimers(scope: CallScope, maxTimers: number, deliver: (id: number, reply: string) => void): CallTimers {
  const pending = new Map<number, { handle: NodeJS.Timeout; hold: Hold }>();
  return {
    get size() {
      return pending.size;
    },
    start(id, ms) {
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || typeof ms !== 'number' || pending.has(id)) return;
      // The prelude counts too: past the cap a timer is simply never answered (it could not fire before the answer anyway).
      if (pending.size >= maxTimers) return;
      const hold = scope.hold(() => clearTimeout(handle));
      if (!hold) return;
      const handle = setTimeout(() => {
        pending.delete(id);
        deliver(id, TIMER_FIRED);
        hold.release();
      }, Math.min(Math.max(1, ms), 2 ** 31 - 1));
      pending.set(id, { handle, hold });
    },
    stop(id) {
      const t = typeof id === 'number' ? pending.get(id) : undefined;
      if (!t) return;
      pending.delete(id as number);
      clearTimeout(t.handle);
      t.hold.release();
    },
  };
}
