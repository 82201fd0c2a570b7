// Waits for a condition with a deadline generous enough for a loaded 2-core machine: a test asserts on the condition
// afterwards, never on how fast it came (a count of short sleeps is a time margin in disguise).
import { setTimeout as pause } from 'node:timers/promises';

export async function eventually<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const value = await check();
    if (value || Date.now() > deadline) return value;
    await pause(options.intervalMs ?? 50);
  }
}
