// Every signature a relayer asks for is bounded in time and, when it fails, told as one error: SIGNER_UNAVAILABLE (502)
// naming the signer and the cause. A remote signer (KMS, Vault, HSM) that hangs then costs one send its answer, never
// the relayer its queue, and the callers (send, check job) decide what to do with a signature that did not come.
import { AppError } from '../../errors.ts';
import type { Ed25519Signer, Signer } from './ports.ts';

/** The error a failed signature becomes; one already told (an AppError) passes as it is. */
function signerFailure(signerId: string, err: unknown): AppError {
  if (err instanceof AppError) return err;
  const message = err instanceof Error ? err.message : String(err);
  // Adapters name the signer themselves ("signer 'kms': …"); others get it added.
  const reason = message.includes(`signer '${signerId}'`) ? message : `signer '${signerId}': ${message}`;
  return new AppError('SIGNER_UNAVAILABLE', { reason, cause: err });
}

async function bounded<T>(signerId: string, timeoutMs: number, sign: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`signer '${signerId}': no signature within ${timeoutMs} ms (timed out)`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([sign(), deadline]);
  } catch (err) {
    throw signerFailure(signerId, err);
  } finally {
    clearTimeout(timer);
  }
}

/** The signer with each signature bounded by `timeoutMs` and its failures made SIGNER_UNAVAILABLE. */
export function boundedSigner(signer: Signer, signerId: string, timeoutMs: number): Signer {
  const evm = signer.signEvmDigest?.bind(signer);
  const ed = signer.ed25519;
  const ed25519: Ed25519Signer | undefined = ed && {
    address: ed.address,
    sign: (message) => bounded(signerId, timeoutMs, () => ed.sign(message)),
  };
  return {
    address: signer.address,
    ...(evm ? { signEvmDigest: (digest: Uint8Array) => bounded(signerId, timeoutMs, () => evm(digest)) } : {}),
    ...(ed25519 ? { ed25519 } : {}),
  };
}
