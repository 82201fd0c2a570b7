// A signer that behaves as a remote one can: the real adapters sign, each signature after `delayMs`, and a chosen
// signature fails (as a throttled or unreachable KMS) or never answers (a KMS that hangs). Tests and the bench use it
// in place of the signer adapters (createApp's overrides), so the send path meets a slow or failing signer for real.
import type { Signer, SignerResolver } from '../../src/domain/signers/ports.ts';
import { signerSettings } from '../../src/config/config.ts';
import { createSignerResolver } from '../../src/signers/registry.ts';

export interface SignerFaults {
  /** Every signature waits this long first (a remote signer's round trip). */
  delayMs: number;
  /** Signatures asked for so far. */
  readonly signatures: number;
  /** The signature after the next `skip` ones fails (`KMS throttled the request`). */
  failAfter(skip: number): void;
  /** The signature after the next `skip` ones never answers. */
  hangAfter(skip: number): void;
}

export function faultySigners(
  base: SignerResolver = createSignerResolver({ env: process.env, settings: signerSettings(process.env) }),
): { resolveSigner: SignerResolver; faults: SignerFaults } {
  const planned = new Map<number, 'fail' | 'hang'>();
  let count = 0;
  const faults: SignerFaults = {
    delayMs: 0,
    get signatures() {
      return count;
    },
    failAfter: (skip) => void planned.set(count + skip, 'fail'),
    hangAfter: (skip) => void planned.set(count + skip, 'hang'),
  };
  const wrap =
    <A extends unknown[]>(sign: (...args: A) => Promise<Uint8Array>) =>
    async (...args: A): Promise<Uint8Array> => {
      const fault = planned.get(count);
      planned.delete(count++);
      if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
      if (fault === 'fail') throw new Error('simulated KMS: the request was throttled (ThrottlingException)');
      if (fault === 'hang') return new Promise<Uint8Array>(() => {});
      return sign(...args);
    };
  const resolveSigner: SignerResolver = async (entry, networkType) => {
    const real: Signer = await base(entry, networkType);
    const evm = real.signEvmDigest?.bind(real);
    const ed = real.ed25519;
    return {
      address: real.address,
      ...(evm ? { signEvmDigest: wrap(evm) } : {}),
      ...(ed ? { ed25519: { address: ed.address, sign: wrap(ed.sign.bind(ed)) } } : {}),
    };
  };
  return { resolveSigner, faults };
}
