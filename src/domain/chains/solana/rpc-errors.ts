// The reference's JSON-RPC errors of a Solana relayer's own methods (code, message, and the text before the reason).
// A refusal is a ValidationError: through the REST routes it is a 400 with the reason; through `rpc`, this table's error.
import { ValidationError } from '../../../errors.ts';

const KINDS = {
  INVALID_PARAMS: { code: -32602, message: 'INVALID_PARAMS', prefix: '' },
  UNSUPPORTED_FEE_TOKEN: {
    code: -32000,
    message: 'UNSUPPORTED_FEE_TOKEN',
    prefix: 'The provided fee_token is not supported by the relayer: ',
  },
  ESTIMATION_ERROR: {
    code: -32001,
    message: 'ESTIMATION_ERROR',
    prefix: 'Failed to estimate the fee due to internal or network issues: ',
  },
  INSUFFICIENT_FUNDS: {
    code: -32002,
    message: 'INSUFFICIENT_FUNDS',
    prefix: 'The sender does not have enough funds for the transfer: ',
  },
  TOKEN_ACCOUNT: { code: -32601, message: 'PREPARATION_ERROR', prefix: 'Invalid Token Account: ' },
  PREPARATION_ERROR: {
    code: -32013,
    message: 'PREPARATION_ERROR',
    prefix: 'Failed to prepare the transfer transaction: ',
  },
  SEND_ERROR: { code: -32006, message: 'SEND_ERROR', prefix: 'Failed to submit the transaction to the blockchain: ' },
  PROVIDER_ERROR: {
    code: -32006,
    message: 'PREPARATION_ERROR',
    prefix: 'Failed to prepare the transfer transaction: ',
  },
} as const;

export type SolanaRpcErrorKind = keyof typeof KINDS;

export class SolanaRpcRefusal extends ValidationError {
  readonly kind: SolanaRpcErrorKind;
  constructor(kind: SolanaRpcErrorKind, reason: string) {
    super(reason);
    this.kind = kind;
  }
}

export interface JsonRpcError {
  code: number;
  message: string;
  description: string;
}

export function jsonRpcError(kind: SolanaRpcErrorKind, reason: string): JsonRpcError {
  const { code, message, prefix } = KINDS[kind];
  return { code, message, description: `${prefix}${reason}` };
}

/** The reference's policy texts: a violated policy, and a transaction that cannot be what it claims. */
export const policyViolation = (reason: string) =>
  new SolanaRpcRefusal('PREPARATION_ERROR', `Policy violation: ${reason}`);
export const invalidTransaction = (reason: string) =>
  new SolanaRpcRefusal('PREPARATION_ERROR', `Validation error: ${reason}`);
