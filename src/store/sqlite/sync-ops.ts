// The SQLite repositories are synchronous (better-sqlite3); the ports are async. One mapping turns one into the other.

/** The synchronous twin of an async port: same methods, same arguments, plain results. */
export type SyncOf<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

/** How a view runs one synchronous operation: through the gate, or inside an open transaction. */
export type Invoke = <A extends unknown[], R>(op: (...args: A) => R, args: A) => Promise<R>;

/** The async port over `ops`: each method hands its operation and arguments to `invoke`. */
export function viewOf<T>(ops: SyncOf<T>, invoke: Invoke): T {
  const view: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [name, op] of Object.entries(ops as Record<string, (...args: unknown[]) => unknown>)) {
    view[name] = (...args) => invoke(op, args);
  }
  return view as T;
}
