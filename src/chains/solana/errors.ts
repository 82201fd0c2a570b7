// Reading Solana's transaction errors as the RPC sends them (`"BlockhashNotFound"`, `{ "InstructionError": [0, { "Custom": 1 }] }`) and classifying refused sends.
import type { SolanaSendRejection, SolanaTransactionError } from '../../domain/chains/solana/ports.ts';
import { SolanaNodeError } from './rpc.ts';

// Numbers in kit's answers are bigints (its JSON reader keeps u64 exact).
const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : (v as number));

/** `"InvalidArgument"` or `{ "Custom": 6001 }` → name and custom code. */
function instructionError(raw: unknown): { error: string; custom: number | null } {
  if (typeof raw === 'string') return { error: raw, custom: null };
  if (raw && typeof raw === 'object') {
    const [name, value] = Object.entries(raw)[0] ?? ['Unknown', undefined];
    return { error: name, custom: name === 'Custom' ? num(value) : null };
  }
  return { error: String(raw), custom: null };
}

/** The RPC's TransactionError JSON, parsed; null for null/undefined. */
export function parseTransactionError(raw: unknown): SolanaTransactionError | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'string') return { kind: 'transaction', error: raw, raw };
  if (typeof raw === 'object') {
    const [name, value] = Object.entries(raw)[0] ?? ['Unknown', undefined];
    if (name === 'InstructionError' && Array.isArray(value))
      return { kind: 'instruction', index: num(value[0]), ...instructionError(value[1]), raw };
    return { kind: 'transaction', error: name, raw };
  }
  return { kind: 'transaction', error: String(raw), raw };
}

// JSON-RPC codes of sendTransaction (agave rpc/src/custom_error.rs).
const PREFLIGHT_FAILURE = -32002;
const SIGNATURE_VERIFICATION_FAILURE = -32003;
const BLOCKHASH_NOT_FOUND_CODE = -32008;
const ALREADY_PROCESSED_CODE = -32009;

const REJECTION_BY_ERROR: Record<string, SolanaSendRejection> = {
  BlockhashNotFound: 'blockhash_not_found',
  AlreadyProcessed: 'already_processed',
  InsufficientFundsForFee: 'insufficient_funds_for_fee',
  SignatureFailure: 'signature_failure',
  MissingSignatureForFee: 'signature_failure',
};

export interface ClassifiedSendError {
  reason: SolanaSendRejection;
  message: string;
  error: SolanaTransactionError | null;
  logs: string[];
}

/** What a node's refusal of `sendTransaction` means; null when the error is not a node's answer. */
export function classifySendError(err: unknown): ClassifiedSendError | null {
  if (!(err instanceof SolanaNodeError)) return null;
  const data = (err.data ?? {}) as { err?: unknown; logs?: unknown };
  const error = parseTransactionError(data.err);
  const logs = Array.isArray(data.logs) ? data.logs.map(String) : [];
  const byCode: Partial<Record<number, SolanaSendRejection>> = {
    [SIGNATURE_VERIFICATION_FAILURE]: 'signature_failure',
    [BLOCKHASH_NOT_FOUND_CODE]: 'blockhash_not_found',
    [ALREADY_PROCESSED_CODE]: 'already_processed',
  };
  let reason: SolanaSendRejection = byCode[err.code] ?? 'other';
  if (err.code === PREFLIGHT_FAILURE && error)
    reason = error.kind === 'instruction' ? 'program_error' : (REJECTION_BY_ERROR[error.error] ?? 'other');
  // Older nodes answer some refusals with text only.
  if (reason === 'other' && /blockhash not found/i.test(err.message)) reason = 'blockhash_not_found';
  if (reason === 'other' && /already (been )?processed/i.test(err.message)) reason = 'already_processed';
  return { reason, message: err.message, error, logs };
}
