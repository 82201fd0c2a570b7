// The lifetime of one plugin call. Everything the call starts that could later run plugin code or host work is
// owned by its scope, and ends with it: once the call has answered, nothing it started runs.
//
// Two kinds of things are owned:
// - holds: work in progress outside the isolate whose completion would enter it again (a host call today; a
//   timer or a fetch when the sandbox gets them). `end()` cancels every hold that has not been released.
// - entries: the host running plugin code in the isolate (runtime/worker/sandbox.ts `enter`). Entries are started only
//   through the scope, so none starts after the end, and the scope knows when none is running.
//
// A call whose scope ended with no hold and no entry outstanding leaves its context provably idle (reusable);
// otherwise the context is discarded.
//
// Work that completes queues its result for the isolate, then releases its hold; the call's owner
// (runtime/worker/call-run.ts) hears of it through onChange and delivers it in its next entry. A sandbox setTimeout,
// say, is a request the worker answers itself:
//
//   const hold = scope.hold(() => clearTimeout(timer));                       // cancelled if the call ends first
//   const timer = setTimeout(() => { replies.push(id, 'null'); hold.release(); }, ms);
//   fetch(url, { signal: scope.signal }).then((r) => { replies.push(id, json(r)); hold.release(); });

export interface Hold {
  /** Marks the held work done. False when the scope already ended (the work was cancelled: do not enter). */
  release(): boolean;
}

export interface CallScope {
  /** Aborted when the call ends; hand it to fetch and any other abortable work the call starts. */
  readonly signal: AbortSignal;
  readonly ended: boolean;
  /** Holds not yet released or cancelled. */
  readonly held: number;
  /** Entries into the isolate queued or running. */
  readonly entering: number;
  /** Takes a hold; `cancel` runs if the scope ends first. Undefined when the scope has already ended. */
  hold(cancel?: () => void): Hold | undefined;
  /** Runs `fn`, an entry into the isolate, unless the scope has ended; `onChange` hears of every entry's end. */
  enter<T>(fn: () => Promise<T>): Promise<T> | undefined;
  /** Called after each entry settles (with its error, if any) and after each hold is released. */
  onChange(listener: (error?: unknown) => void): void;
  /** Ends the call: cancels every outstanding hold; later holds and entries are refused. */
  end(): void;
}

/** One per call: a class, not a closure per method, since a call makes one and most calls use little of it. */
class Scope implements CallScope {
  // Made on first use: most calls never hand their signal to anything, and an AbortController is not free.
  #controller: AbortController | undefined;
  // Made at the first hold: most calls take none.
  #cancels: Set<() => void> | undefined;
  #held = 0;
  #entering = 0;
  #ended = false;
  #listener: (error?: unknown) => void = () => {};

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#ended) this.#controller.abort();
    return this.#controller.signal;
  }
  get ended(): boolean {
    return this.#ended;
  }
  get held(): number {
    return this.#held;
  }
  get entering(): number {
    return this.#entering;
  }
  hold(cancel?: () => void): Hold | undefined {
    if (this.#ended) return undefined;
    this.#held++;
    const entry = cancel ?? (() => {});
    const all = (this.#cancels ??= new Set());
    all.add(entry);
    let done = false;
    return {
      release: () => {
        if (done || this.#ended) return false;
        done = true;
        this.#held--;
        all.delete(entry);
        this.#listener();
        return true;
      },
    };
  }
  enter<T>(fn: () => Promise<T>): Promise<T> | undefined {
    if (this.#ended) return undefined;
    this.#entering++;
    const settle = (error?: unknown) => {
      this.#entering--;
      this.#listener(error);
    };
    const running = fn();
    running.then(() => settle(), settle);
    return running;
  }
  onChange(listener: (error?: unknown) => void): void {
    this.#listener = listener;
  }
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#controller?.abort();
    const cancels = this.#cancels;
    if (!cancels) return;
    for (const cancel of cancels) {
      try {
        cancel();
      } catch {
        // cancelling is best effort: the call has answered either way
      }
    }
    cancels.clear();
  }
}

export function createCallScope(): CallScope {
  return new Scope();
}
