// What the domain needs from a Stellar network; src/chains/stellar implements it over Stellar RPC (JSON-RPC) with stellar-base XDR (types only).
import type { RawRpcAnswer, RpcUrlHealth } from '../ports.ts';

/**
 * Signs for a relayer with an Ed25519 key. `sign` is async so a keystore or KMS signer (issue 16)
 * fits the same seam as the development raw key.
 */
export interface StellarSigner {
  /** `G…` account id: the relayer's address. */
  readonly address: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export type StellarAssetSpec =
  | { type: 'native' }
  | { type: 'credit_alphanum4' | 'credit_alphanum12'; code: string; issuer: string };

type Int = number | string | bigint;

/**
 * Operations of request shape C. Amounts are in stroops (1 XLM = 10,000,000). `payment` and
 * `invoke_contract` are the reference's; `create_account` and `change_trust` are ours (issue 18).
 * `invoke_contract` args are ScVals in the JSON form the reference takes (`{ "u64": "5" }`,
 * `{ "symbol": "transfer" }`, `{ "address": "G…" }`, `{ "i128": { "hi": 0, "lo": 5 } }`…).
 */
export type StellarOperationSpec =
  | { type: 'payment'; destination: string; amount: Int; asset: StellarAssetSpec }
  | { type: 'create_account'; destination: string; starting_balance: Int }
  /** `limit` absent: the largest (int64 max); 0 removes the trustline. */
  | { type: 'change_trust'; asset: StellarAssetSpec & { type: 'credit_alphanum4' | 'credit_alphanum12' }; limit?: Int }
  | {
      type: 'invoke_contract';
      contract_address: string;
      function_name: string;
      args: unknown[];
      auth?: { type: 'none' } | { type: 'source_account' } | { type: 'xdr'; entries: string[] };
    };

/** `hash`/`return` values: 32 bytes, as an array of integers (the seed's form) or 64 hex digits (the reference's). */
export type StellarMemoSpec =
  | { type: 'none' }
  | { type: 'text'; value: string }
  | { type: 'id'; value: Int }
  | { type: 'hash' | 'return'; value: number[] | string };

export interface StellarOperationsRequest {
  operations: StellarOperationSpec[];
  memo?: StellarMemoSpec | null;
  /** The transaction's source; only the relayer's own address is accepted (it is the account that signs and pays). */
  source_account?: string | null;
  /** Time bounds' max time; absent: the reference's default for operations, two minutes from now. */
  validUntil?: Date | null;
  /** Upper limit of the fee bid, stroops. */
  maxFee: bigint;
  /** Sequence number to use; absent: the account's on-chain sequence + 1 (read now). */
  sequence?: bigint;
  /**
   * Every operation's source (a key pool's fund account while a channel account is the transaction's source and
   * sequence, issue 44); absent: the transaction's source.
   */
  operationsSource?: string;
}

export interface StellarAccount {
  accountId: string;
  /** The last sequence number used: the next transaction uses sequence + 1. */
  sequence: bigint;
  /** Native balance, stroops. */
  balance: bigint;
  /** Trustline balances for the assets asked for; an asset without a trustline is absent. */
  balances: Array<{ asset: StellarAssetSpec; balance: bigint; limit: bigint }>;
}

/** Inclusion fee per operation (stroops) paid in recent ledgers, from `getFeeStats`. */
export interface StellarFeeStats {
  classic: { min: bigint; mode: bigint; p50: bigint; p90: bigint; max: bigint };
  soroban: { min: bigint; mode: bigint; p50: bigint; p90: bigint; max: bigint };
  latestLedger: number;
}

/**
 * Codes in Horizon's snake_case form: `code` is the transaction's (`tx_bad_seq`, `tx_failed`,
 * `tx_fee_bump_inner_failed`…), `innerCode` the inner transaction's for a fee bump, `opCodes` one
 * per operation (`op_success`, `op_underfunded`, `op_no_destination`…) when operations ran.
 */
export interface StellarResultCodes {
  code: string;
  innerCode: string | null;
  opCodes: string[];
}

/** One `sendTransaction`. ERROR carries the decoded `errorResultXdr`; `unavailable`: no URL answered. */
export type StellarSubmitOutcome =
  | { status: 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER'; hash: string; latestLedger: number }
  | { status: 'ERROR'; hash: string; latestLedger: number; result: StellarResultCodes; errorResultXdr: string | null }
  | { status: 'unavailable'; hash: string; message: string };

/**
 * One `getTransaction`. NOT_FOUND: not (yet, or no longer) in the node's retention window; `latestLedgerCloseTime`
 * (Unix seconds, when the node gave it): no later ledger closes before it.
 */
export type StellarTransactionStatus =
  | { status: 'SUCCESS'; hash: string; ledger: number; createdAt: Date; feeCharged: bigint; resultXdr: string }
  | {
      status: 'FAILED';
      hash: string;
      ledger: number;
      createdAt: Date;
      feeCharged: bigint;
      result: StellarResultCodes;
      resultXdr: string;
    }
  | { status: 'NOT_FOUND'; hash: string; latestLedger: number; oldestLedger: number; latestLedgerCloseTime?: number };

/** `simulateTransaction` of a Soroban transaction: resources and auth to apply, or the node's error. */
export type StellarSimulation =
  | { ok: true; minResourceFee: bigint; transactionData: string; auth: string[]; latestLedger: number }
  | { ok: false; error: string; latestLedger: number };

/** One path from Horizon's path finding (`/paths/strict-send`): what `amount` of the source asset buys, through which assets. */
export interface StellarPathQuote {
  sourceAmount: bigint;
  destinationAmount: bigint;
  /** The intermediate assets (at most 5), in order. */
  path: StellarAssetSpec[];
}

/** A transaction signed by the relayer, ready for `submit`. */
export interface SignedStellarTransaction {
  /** Hex hash of what is submitted (the fee bump's own hash for a fee bump). */
  hash: string;
  /** Base64 signed TransactionEnvelope XDR. */
  envelopeXdr: string;
  /** The (inner) transaction's source account and sequence number. */
  source: string;
  sequence: bigint;
  /** Total fee bid, stroops. */
  fee: bigint;
  feeBump: boolean;
  /** The time bounds' max time; null when unbounded. */
  validUntil: Date | null;
}

/** A transaction about to get the relayer's signature, as the signing gate reads it. */
export interface UnsignedStellarTransaction {
  /** Base64 envelope XDR as it will be signed (for a fee bump: the inner transaction the relayer pays for). */
  envelopeXdr: string;
  /** Who pays the fee: the fee bump's fee source, else the transaction's source. */
  feeSource: string;
  /** Stroops bid. */
  fee: bigint;
  /** It invokes a contract (or extends or restores Soroban state). */
  soroban: boolean;
  /** The adapter simulated it just now (a Soroban call it built or prepared) and the simulation succeeded. */
  simulated: boolean;
}

declare const approvedByGate: unique symbol;
/**
 * The signing gate's approval (src/domain/signers/gate.ts, its only maker) of a Stellar signature: each signing
 * method below requires one and calls it before the key signs; a throw stops the signature.
 */
export type StellarSigningApproval = ((unsigned: UnsignedStellarTransaction) => Promise<void>) & {
  readonly [approvedByGate]: true;
};

/**
 * One Stellar network, through all its RPC URLs (failover, timeouts, retries). Reads throw an AppError
 * `CHAIN_UNAVAILABLE` when no URL answers; `submit` and `transaction` never throw for what a node says.
 * Building and signing refuse bad input with a ValidationError naming the problem.
 */
export interface StellarChain {
  readonly network: string;
  readonly passphrase: string;
  /** Throws when the RPC's `getNetwork` passphrase differs from the configured one. Remembered once it matched. */
  checkNetwork(): Promise<void>;
  /** null: the account does not exist on the network. */
  account(address: string, assets?: StellarAssetSpec[]): Promise<StellarAccount | null>;
  feeStats(): Promise<StellarFeeStats>;
  latestLedger(): Promise<{ sequence: number; protocolVersion: number }>;
  /** Through every RPC URL that takes submissions at once: PENDING/DUPLICATE if any node took it, else the first ERROR. */
  submit(envelopeXdr: string): Promise<StellarSubmitOutcome>;
  /**
   * A hash `submit` got accepted is NOT_FOUND past its time bounds: each URL that accepted it as PENDING is asked for it
   * directly, and one whose network does not know it takes no submission for a while (shown in health()).
   */
  submitDidNotLand?(hash: string): Promise<number>;
  transaction(hash: string): Promise<StellarTransactionStatus>;
  simulate(envelopeXdr: string): Promise<StellarSimulation>;
  /**
   * Checks operations and memo as buildAndSign will build them, without the network: each refusal is a
   * ValidationError naming the field (`'operations.0.amount' must be…`). Pure: no RPC.
   */
  checkOperations(operations: StellarOperationSpec[], memo?: StellarMemoSpec | null): void;
  /** The operations as checkOperations builds them, each an xdr.Operation in base64 (for a transaction the user signs). Pure. */
  encodeOperations(operations: StellarOperationSpec[]): string[];
  /** Builds from operations (sequence from the network unless given, memo, time bounds, fee within maxFee) and signs. */
  buildAndSign(
    request: StellarOperationsRequest,
    signer: StellarSigner,
    approval: StellarSigningApproval,
  ): Promise<SignedStellarTransaction>;
  /**
   * An unsigned `transaction_xdr` whose source is the relayer: its sequence is set from the network
   * (or `sequence`), its fee raised to the minimum when lower (refused above maxFee), then signed.
   * `resign`: the xdr is one the relayer signed before; its signatures are dropped first (a new sequence).
   */
  signXdr(
    xdr: string,
    signer: StellarSigner,
    options: { maxFee: bigint; sequence?: bigint; resign?: boolean },
    approval: StellarSigningApproval,
  ): Promise<SignedStellarTransaction>;
  /** A signed `transaction_xdr` wrapped in a fee bump paid and signed by the relayer, fee at most maxFee. */
  feeBump(
    xdr: string,
    signer: StellarSigner,
    options: { maxFee: bigint },
    approval: StellarSigningApproval,
  ): Promise<SignedStellarTransaction>;
  /**
   * Adds the relayer's signature to an envelope exactly as given (sequence, fee and source untouched),
   * as the reference's sign-transaction does. Refuses what is not a transaction envelope (`field` names it).
   */
  signEnvelope(
    xdr: string,
    signer: StellarSigner,
    field: string,
    approval: StellarSigningApproval,
  ): Promise<{ envelopeXdr: string; signature: string }>;
  /**
   * The order book's best price (Horizon `/paths/strict-send` of the network's `horizon_url`): how much of `destination`
   * selling exactly `amount` of `source` buys. Amounts in each asset's smallest unit with the decimals given (Horizon
   * writes 7). null: no path. Throws CHAIN_UNAVAILABLE when Horizon does not answer or answers an error.
   */
  strictSendPath(
    source: StellarAssetSpec,
    amount: bigint,
    destination: StellarAssetSpec,
    decimals: { source: number; destination: number },
  ): Promise<StellarPathQuote | null>;
  /** One JSON-RPC request as given, through the failover URLs (the relayer's `rpc` route; the domain decides what may pass). */
  rawRequest(method: string, params: unknown): Promise<RawRpcAnswer>;
  health(): RpcUrlHealth[];
}

export interface StellarChains {
  /** Throws when no Stellar network has that name. */
  stellar(network: string): StellarChain;
}
