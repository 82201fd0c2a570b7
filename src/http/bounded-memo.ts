// A small memo for per-request work whose inputs repeat (a client's key, its paths), bounded against inputs that never do.
/** Keys remembered by `boundedMemo`, and the longest remembered: bound its memory. */
const MEMO_KEYS = 1_000;
const MEMO_KEY_LENGTH = 256;

/**
 * `compute`, remembered per key for what clients send again on every request (their key, their paths). Cleared when
 * full, so keys never seen twice (a flood of made-up ones) cost only their computing.
 */
export function boundedMemo<T>(compute: (key: string) => T): (key: string) => T {
  const kept = new Map<string, T>();
  return (key) => {
    let value = kept.get(key);
    if (value !== undefined) return value;
    value = compute(key);
    if (key.length <= MEMO_KEY_LENGTH) {
      if (kept.size >= MEMO_KEYS) kept.clear();
      kept.set(key, value);
    }
    return value;
  };
}
