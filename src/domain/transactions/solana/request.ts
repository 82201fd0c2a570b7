// Solana requests (shape B and the reference's `instructions` form), pure: which form, and valid_until. The wire
// transaction itself is decoded and checked by the Solana port when it signs (one decode, the reference's texts).
import { ValidationError } from '../../../errors.ts';
import type { SolanaInstructionSpec } from '../../chains/solana/ports.ts';
import { checkValidUntil } from '../valid-until.ts';

/** After schema validation: exactly one of `transaction` and a non-empty `instructions` (checked here, with the reference's texts). */
export interface SolanaBody {
  transaction?: string;
  instructions?: SolanaInstructionSpec[];
  valid_until?: string;
}

export type SolanaRequest =
  | { form: 'transaction'; transaction: string; validUntil: string | null }
  | { form: 'instructions'; instructions: SolanaInstructionSpec[]; validUntil: string | null };

/** Which form the request uses (the reference's texts), its valid_until in the future. */
export function parseSolanaRequest(body: SolanaBody, now = Date.now()): SolanaRequest {
  const hasTransaction = body.transaction !== undefined;
  const hasInstructions = (body.instructions?.length ?? 0) > 0;
  if (hasTransaction && hasInstructions) throw new ValidationError('Cannot provide both transaction and instructions');
  if (!hasTransaction && !hasInstructions) throw new ValidationError('Must provide either transaction or instructions');
  const validUntil = body.valid_until === undefined ? null : checkValidUntil(body.valid_until, now);
  return hasTransaction
    ? { form: 'transaction', transaction: body.transaction!, validUntil }
    : { form: 'instructions', instructions: body.instructions!, validUntil };
}
