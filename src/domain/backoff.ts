// Retry delay after a failed attempt: exponential from the base, capped, with "equal jitter".
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

/**
 * Delay before the attempt after `attempts` failures: base · 2^(attempts-1), capped at max, then
 * drawn from [half, full] so receivers that failed together are not hit together again.
 */
export function backoffDelay(policy: BackoffPolicy, attempts: number, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}
