// The check job's signatures (re-price, NOOP, re-nonce) when the relayer's signer fails: the transaction keeps its
// next step (the job runs again), but the signer is not asked again before a backoff has passed (1 s doubling up to a
// minute, per relayer), so a KMS that is down or throttling is not hammered by every run and every transaction.
import { AppError } from '../../../errors.ts';
import type { Log } from '../../log.ts';
import type { EvmSigner } from './versions.ts';

const BASE_MS = 1_000;
const MAX_MS = 60_000;

export type SignBackoff = (relayerId: string, signer: EvmSigner) => EvmSigner;

export function createSignBackoff(logger: Log): SignBackoff {
  const waits = new Map<string, { until: number; delayMs: number }>();
  return (relayerId, signer) => ({
    ...signer,
    async signDigest(digest) {
      const wait = waits.get(relayerId);
      if (wait && Date.now() < wait.until) {
        throw new AppError('SIGNER_UNAVAILABLE', {
          reason: `relayer '${relayerId}': its signer failed; signing again after ${new Date(wait.until).toISOString()}`,
        });
      }
      try {
        const signature = await signer.signDigest(digest);
        waits.delete(relayerId);
        return signature;
      } catch (err) {
        const delayMs = Math.min(MAX_MS, wait ? wait.delayMs * 2 : BASE_MS);
        waits.set(relayerId, { until: Date.now() + delayMs, delayMs });
        // The reason names the signer and the cause; never the error object (no stack, nothing an SDK attached).
        const reason = err instanceof AppError ? err.reason : (err as Error).message;
        logger.warn(
          { relayerId, reason, retryInMs: delayMs },
          'relayer check: signing failed; its transactions are signed again after the backoff',
        );
        throw err;
      }
    },
  });
}

/** A failure the backoff already logged (the check logs it again only at debug). */
export const isSignerFailure = (err: unknown) => err instanceof AppError && err.code === 'SIGNER_UNAVAILABLE';
