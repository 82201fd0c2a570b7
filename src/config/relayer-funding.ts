// A key pool's funding signer as declared (config file or API, issue 44): `funding_signer_id` with the policies
// `lane_min_balance` and `lane_target_balance` (wei). The rules (docs/transactions.md, "Funding"): only for a pool;
// both policies with it, and only with it; the target above the minimum; the funding key none of the pool's keys.
import { ValidationError } from '../errors.ts';

export interface FundingDeclaration {
  funding_signer_id?: string | null | undefined;
  policies?: Record<string, unknown> | null | undefined;
}

export interface FundingLevels {
  min: bigint;
  target: bigint;
}

const wei = (v: unknown): bigint | undefined =>
  typeof v === 'number' || typeof v === 'string' ? BigInt(v) : undefined;

/** The pool's top-up levels; null without them. */
export function fundingLevels(policies: Record<string, unknown> | null | undefined): FundingLevels | null {
  const min = wei(policies?.lane_min_balance);
  const target = wei(policies?.lane_target_balance);
  return min === undefined || target === undefined ? null : { min, target };
}

/** Throws a ValidationError naming the field when the declaration breaks a rule; `ids` are the pool's signers. */
export function checkFunding(d: FundingDeclaration, ids: readonly string[], where = ''): void {
  const field = (name: string) => `'${where}${name}'`;
  const min = wei(d.policies?.lane_min_balance);
  const target = wei(d.policies?.lane_target_balance);
  const funder = d.funding_signer_id ?? undefined;
  if (funder === undefined) {
    const given = min !== undefined ? 'lane_min_balance' : target !== undefined ? 'lane_target_balance' : null;
    if (given)
      throw new ValidationError(
        `${field(`policies.${given}`)} applies with a funding signer only: give 'funding_signer_id' too`,
      );
    return;
  }
  if (ids.length < 2)
    throw new ValidationError(
      `${field('funding_signer_id')} applies to key pools only: give 'signer_ids' with two signers or more`,
    );
  const own = ids.indexOf(funder);
  if (own >= 0)
    throw new ValidationError(
      `${field('funding_signer_id')}: signer '${funder}' is a key of the pool (${field(`signer_ids.${own}`)}); the funding key must be another`,
    );
  if (min === undefined)
    throw new ValidationError(`${field('policies.lane_min_balance')} is required with a funding signer (wei)`);
  if (target === undefined)
    throw new ValidationError(`${field('policies.lane_target_balance')} is required with a funding signer (wei)`);
  if (target <= min)
    throw new ValidationError(
      `${field('policies.lane_target_balance')} (${target}) must be above ${field('policies.lane_min_balance')} (${min})`,
    );
}

type Entry = FundingDeclaration & { id: string; signer_id: string; signer_ids?: string[] | undefined };

/**
 * The config file's relayer entry `i` (its policies parsed): its funding signer known, declared by the rules above,
 * and no key of another relayer (its top-ups would fight that relayer's sends for the nonces).
 */
export function checkRelayerFunding(r: Entry, i: number, known: ReadonlySet<string>, all: readonly Entry[]): void {
  try {
    checkFunding(r, r.signer_ids ?? [r.signer_id], `relayers.${i}.`);
  } catch (err) {
    throw new Error((err as { reason?: string }).reason ?? (err as Error).message, { cause: err });
  }
  if (r.funding_signer_id && !known.has(r.funding_signer_id))
    throw new Error(`relayers.${i}.funding_signer_id: unknown signer '${r.funding_signer_id}'`);
  const other = all.find(
    (o) =>
      o !== r && [o.signer_id, ...(o.signer_ids ?? []), o.funding_signer_id].includes(r.funding_signer_id ?? undefined),
  );
  if (r.funding_signer_id && other)
    throw new Error(
      `relayers.${i}.funding_signer_id: signer '${r.funding_signer_id}' is already used by relayer '${other.id}'; a funding key serves one relayer`,
    );
}
