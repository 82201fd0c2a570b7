// A key pool's funding key (issue 44, docs/transactions.md "Funding"): a lane of its own that never takes user sends
// (a lane row at position -1, outside the routing), so its top-ups get a nonce sequence and a funds ledger as any
// lane's, are signed by its key and tracked by the relayer's check.
import { ValidationError } from '../../errors.ts';
import type { Signer } from '../signers/ports.ts';
import type { LaneRow } from './ports.ts';
import { DEFAULT_MAX_PENDING_PER_KEY } from './lanes.ts';

export { checkFunding, fundingLevels } from '../../config/relayer-funding.ts';

export const FUNDING_POSITION = -1;

export const isFundingLane = (lane: Pick<LaneRow, 'position'>): boolean => lane.position === FUNDING_POSITION;

/** The funding key resolved, checked to sign EVM transactions and to hold none of the pool's keys. */
export async function resolveFunder(
  id: string,
  resolve: (id: string) => Promise<Signer>,
  pool: readonly Signer[],
  where = '',
): Promise<Signer> {
  let signer: Signer;
  try {
    signer = await resolve(id);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(`'${where}funding_signer_id': ${err.reason.replace(/^'signer_id': /, '')}`);
  }
  if (!signer.signEvmDigest)
    throw new ValidationError(
      `'${where}funding_signer_id': signer '${id}' cannot sign EVM transactions; a funding key must`,
    );
  const own = pool.findIndex((s) => s.address.toLowerCase() === signer.address.toLowerCase());
  if (own >= 0)
    throw new ValidationError(
      `'${where}funding_signer_id': signer '${id}' holds the same key (${signer.address}) as 'signer_ids.${own}'; the funding key must be another`,
    );
  return signer;
}

/** The funding key's lane row. */
export function fundingLaneRow(
  relayerId: string,
  signerId: string,
  signer: Signer,
): Pick<LaneRow, 'relayer_id' | 'address' | 'signer_id' | 'position' | 'max_pending'> {
  return {
    relayer_id: relayerId,
    address: signer.address,
    signer_id: signerId,
    position: FUNDING_POSITION,
    max_pending: DEFAULT_MAX_PENDING_PER_KEY,
  };
}
