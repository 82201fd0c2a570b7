// `valid_until`: an RFC 3339 time (the schema checks the format) that must still be in the future.
import { ValidationError } from '../../errors.ts';

export function checkValidUntil(value: string, now: number): string {
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new ValidationError(`'valid_until' must be an RFC 3339 date-time`);
  if (at <= now) throw new ValidationError(`'valid_until' must be in the future (got ${value})`);
  return new Date(at).toISOString();
}
