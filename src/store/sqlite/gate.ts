// Serializes use of the one better-sqlite3 connection: while a transaction is open (possibly suspended at an
// `await`), every other statement waits, since on this connection it would silently join that transaction.
import { AsyncLocalStorage } from 'node:async_hooks';

interface Waiter {
  /** A queued statement: runs synchronously when its turn comes. */
  run?: () => void;
  /** A queued transaction: given the connection when its turn comes. */
  grant?: () => void;
}

/** Marks the code of one open transaction (its callback and everything it awaits), so it can be told apart from everyone else's. */
export interface TxScope {
  open: boolean;
  /** After-commit hooks of this transaction. */
  hooks?: Array<() => void>;
}

export interface Gate {
  /** Runs `op(...args)` at once when no transaction is open, else right after it (and the ones queued before), in order. */
  run<A extends unknown[], R>(op: (...args: A) => R, args: A): Promise<R>;
  /** Takes the connection for a transaction: at once (returns undefined) or once it is its turn. Pair with `leave`. */
  enter(): Promise<void> | undefined;
  /** Gives the connection back: queued statements run, then the next queued transaction gets it. */
  leave(): void;
  /** Runs `fn` as the code of the open transaction `scope`. */
  within<T>(scope: TxScope, fn: () => T): T;
  /** The open transaction whose code is running now, if any. */
  current(): TxScope | undefined;
}

const NESTED = 'atomically() was called inside atomically(): use the repositories of the tx you were given';
const OUTSIDE_FROM_INSIDE = 'store.repos was used inside atomically(): use the repositories of the tx you were given';

export function createGate(): Gate {
  const scopes = new AsyncLocalStorage<TxScope>();
  const queue: Waiter[] = [];
  let held = false;

  return {
    run(op, args) {
      if (!held) {
        try {
          return Promise.resolve(op(...args));
        } catch (err) {
          return Promise.reject(err);
        }
      }
      // Waiting for the open transaction from inside it would never end: say so instead.
      if (scopes.getStore()?.open) return Promise.reject(new Error(OUTSIDE_FROM_INSIDE));
      return new Promise((resolve, reject) => {
        queue.push({
          run() {
            try {
              resolve(op(...args));
            } catch (err) {
              reject(err);
            }
          },
        });
      });
    },
    enter() {
      if (!held) {
        held = true;
        return undefined;
      }
      if (scopes.getStore()?.open) throw new Error(NESTED);
      return new Promise<void>((grant) => queue.push({ grant }));
    },
    leave() {
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (next.grant) return next.grant();
        next.run!();
      }
      held = false;
    },
    within: (scope, fn) => scopes.run(scope, fn),
    current() {
      const scope = scopes.getStore();
      return scope?.open ? scope : undefined;
    },
  };
}
