// `valid_until`: an RFC 3339 time (the schema checks the format) that must still be in the future.
import { ValidationError } from '../../errors.ts';

export function checkValidUntil(value: string, now: number): string {
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new ValidationError(`'valid_until' must be an RFC 3339 date-time`);
  if (at <= now) throw new ValidationError(`'valid_until' must be in the future (got ${value})`);
  return new Date(at).toISOString();
}

/**
 * An EVM transaction sent without `valid_until` is valid for 8 hours after it was created: the reference's
 * DEFAULT_TX_VALID_TIMESPAN (the record keeps `valid_until` null, as the reference's does).
 */
const EVM_DEFAULT_VALID_FOR_MS = 8 * 60 * 60 * 1000;

/** When an EVM transaction stops being valid (ms since the epoch): its `valid_until`, else 8 hours after `created_at`. */
export function evmExpiresAt(record: { valid_until: string | null; created_at: string }): number {
  if (record.valid_until !== null) return Date.parse(record.valid_until);
  return Date.parse(record.created_at) + EVM_DEFAULT_VALID_FOR_MS;
}
