// A relayer's key pool as declared (config file or API): `signer_ids` beside the reference's `signer_id`, and
// `max_pending_per_key`. The rules (docs/transactions.md, "Key pools"): `signer_id` alone is a relayer as the
// reference has it; `signer_ids` names every key, the first one the relayer's `signer_id` (given both, they must agree);
// a pool has at least two keys, all distinct, all of the relayer's network type (EVM lanes; Solana fee payers;
// Stellar: the first key the fund account, the others its channel accounts).
import { ValidationError } from '../errors.ts';
import type { NetworkType } from './networks.ts';

export interface PoolDeclaration {
  signer_id?: string | undefined;
  signer_ids?: string[] | undefined;
  max_pending_per_key?: number | undefined;
}

/** The relayer's signers in order (the first is its `signer_id`); throws a ValidationError naming the field. */
export function signersOf(d: PoolDeclaration, _networkType: NetworkType | undefined, where = ''): string[] {
  const field = (name: string) => `${where}${name}`;
  if (d.signer_ids === undefined) {
    if (d.signer_id === undefined)
      throw new ValidationError(
        `missing required field '${field('signer_id')}' (or '${field('signer_ids')}' for a key pool)`,
      );
    if (d.max_pending_per_key !== undefined)
      throw new ValidationError(
        `'${field('max_pending_per_key')}' applies to key pools only: give 'signer_ids' with two signers or more`,
      );
    return [d.signer_id];
  }
  const ids = d.signer_ids;
  if (ids.length === 0) throw new ValidationError(`'${field('signer_ids')}' must name at least one signer`);
  const seen = new Set<string>();
  ids.forEach((id, k) => {
    if (seen.has(id))
      throw new ValidationError(
        `'${field(`signer_ids.${k}`)}': signer '${id}' is named twice; each key of a pool is named once`,
      );
    seen.add(id);
  });
  if (d.signer_id !== undefined && d.signer_id !== ids[0]) {
    throw new ValidationError(
      `'${field('signer_id')}' ('${d.signer_id}') must be the first of '${field('signer_ids')}' ('${ids[0]}') when both are given`,
    );
  }
  if (ids.length === 1 && d.max_pending_per_key !== undefined)
    throw new ValidationError(
      `'${field('max_pending_per_key')}' applies to key pools only: give 'signer_ids' with two signers or more`,
    );
  return ids;
}

/** The config file's relayer entry `i`: its signers named by the rules above and known; `signer_id` filled in. */
export function checkRelayerSigners(
  r: PoolDeclaration & { signer_id?: string; network_type?: NetworkType },
  i: number,
  known: ReadonlySet<string>,
): void {
  let ids: string[];
  try {
    ids = signersOf(r, r.network_type, `relayers.${i}.`);
  } catch (err) {
    throw new Error((err as { reason?: string }).reason ?? (err as Error).message, { cause: err });
  }
  ids.forEach((id, k) => {
    if (!known.has(id))
      throw new Error(`relayers.${i}.${r.signer_ids ? `signer_ids.${k}` : 'signer_id'}: unknown signer '${id}'`);
  });
  r.signer_id = ids[0]!;
}
