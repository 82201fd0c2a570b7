// A relayer's key pool once its signers are named (config/relayer-pools.ts): resolved, checked, and as lane rows.
import { ValidationError } from '../../errors.ts';
export { signersOf } from '../../config/relayer-pools.ts';
import type { Signer } from '../signers/ports.ts';
import type { LaneRow } from './ports.ts';
import { DEFAULT_MAX_PENDING_PER_KEY } from './lanes.ts';

const FAMILY_NAMES = { evm: 'EVM', solana: 'Solana', stellar: 'Stellar' } as const;

/**
 * The pool's keys resolved, each checked to sign for its family (EVM digests; Ed25519 for Solana and Stellar) and to be
 * a key of its own (no address twice).
 */
export async function resolvePool(
  ids: readonly string[],
  resolve: (id: string) => Promise<Signer>,
  where = '',
  family: 'evm' | 'solana' | 'stellar' = 'evm',
): Promise<Signer[]> {
  const signers: Signer[] = [];
  const addresses = new Map<string, string>();
  for (const [k, id] of ids.entries()) {
    let signer: Signer;
    try {
      signer = await resolve(id);
    } catch (err) {
      // One signer: its refusal as the reference's relayer gets it (an unknown one is 404 SIGNER_NOT_FOUND).
      if (ids.length === 1 || !(err instanceof ValidationError)) throw err;
      throw new ValidationError(`'${where}signer_ids.${k}': ${err.reason.replace(/^'signer_id': /, '')}`);
    }
    if (ids.length > 1 && !(family === 'evm' ? signer.signEvmDigest : signer.ed25519))
      throw new ValidationError(
        `'${where}signer_ids.${k}': signer '${id}' cannot sign ${FAMILY_NAMES[family]} transactions; every key of a ${FAMILY_NAMES[family]} pool must`,
      );
    const other = addresses.get(signer.address.toLowerCase());
    if (other !== undefined)
      throw new ValidationError(
        `'${where}signer_ids.${k}': signer '${id}' holds the same key (${signer.address}) as '${other}'; each key of a pool is named once`,
      );
    addresses.set(signer.address.toLowerCase(), id);
    signers.push(signer);
  }
  return signers;
}

/** The lane rows of a pool (none for a single signer). */
export function laneRowsOf(
  relayerId: string,
  ids: readonly string[],
  signers: readonly Signer[],
  maxPending: number | undefined,
) {
  if (ids.length < 2) return [];
  return ids.map(
    (signer_id, position): Pick<LaneRow, 'relayer_id' | 'address' | 'signer_id' | 'position' | 'max_pending'> => ({
      relayer_id: relayerId,
      address: signers[position]!.address,
      signer_id,
      position,
      max_pending: maxPending ?? DEFAULT_MAX_PENDING_PER_KEY,
    }),
  );
}
