// What the domain needs from a Solana network; src/chains/solana implements it over @solana/kit's RPC (types only).
import type { RawRpcAnswer, RpcUrlHealth } from '../ports.ts';

/** processed: executed by the node; confirmed: voted by a supermajority; finalized: 31+ blocks deep, cannot roll back. */
export type SolanaCommitment = 'processed' | 'confirmed' | 'finalized';

/**
 * Signs for a relayer with an Ed25519 key. `sign` is async so a keystore or KMS signer (issue 16)
 * fits the same seam as the development raw key.
 */
export interface SolanaSigner {
  /** Base58 public key: the relayer's address. */
  readonly address: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export interface SolanaBlockhash {
  blockhash: string;
  /** Past this block height the blockhash is expired and a transaction using it can never land. */
  lastValidBlockHeight: bigint;
}

/**
 * A transaction error as the node reports it (`err` of a status, preflight or simulation).
 * `instruction`: `InstructionError` of instruction `index`; `error` is its name (`Custom`,
 * `InsufficientFunds`…) and `custom` the program's own code for `Custom`.
 * `transaction`: a transaction-level error such as `BlockhashNotFound` or `InsufficientFundsForFee`.
 */
export type SolanaTransactionError =
  | { kind: 'instruction'; index: number; error: string; custom: number | null; raw: unknown }
  | { kind: 'transaction'; error: string; raw: unknown };

/** How a node refused a transaction at `sendTransaction` (its preflight, or the signature check before it). */
export type SolanaSendRejection =
  /** The blockhash is unknown or expired: re-sign with a fresh one (only when the relayer is the only signer). */
  | 'blockhash_not_found'
  /** This very transaction (same signature) was already processed: it is on chain, not refused. */
  | 'already_processed'
  | 'insufficient_funds_for_fee'
  /** An instruction failed in preflight; `error` carries which and why. */
  | 'program_error'
  | 'signature_failure'
  | 'other';

/**
 * The outcome of one `sendTransaction` (preflight on). `submitted` includes AlreadyProcessed for our
 * own signature (`alreadyProcessed`). `unavailable`: no URL answered, so it may or may not have reached a node.
 */
export type SolanaSendOutcome =
  | { status: 'submitted'; signature: string; alreadyProcessed: boolean }
  | { status: 'rejected'; signature: string; reason: SolanaSendRejection; message: string; error: SolanaTransactionError | null; logs: string[] }
  | { status: 'unavailable'; signature: string; message: string };

export interface SolanaSignatureStatus {
  signature: string;
  slot: bigint;
  /** Blocks since; null once finalized (the RPC's convention). */
  confirmations: number | null;
  commitment: SolanaCommitment;
  /** Non-null: the transaction landed and failed (fees were charged). */
  err: SolanaTransactionError | null;
}

export interface SolanaSimulation {
  err: SolanaTransactionError | null;
  logs: string[];
  unitsConsumed: bigint | null;
}

/** One instruction of the reference's `instructions` request form; `data` is base64. */
export interface SolanaInstructionSpec {
  program_id: string;
  accounts: Array<{ pubkey: string; is_signer: boolean; is_writable: boolean }>;
  data: string;
}

/** A transaction signed by the relayer, ready for `send`. */
export interface SignedSolanaTransaction {
  /** The fee payer's signature (base58): the transaction's id on chain. */
  signature: string;
  /** Base64 wire transaction (signatures + message). */
  transaction: string;
  feePayer: string;
  blockhash: string;
  /** Known when the relayer chose the blockhash; null for a client's transaction signed as is. */
  lastValidBlockHeight: bigint | null;
  /** The relayer is the only required signer, so it may re-sign with a fresh blockhash when this one expires. */
  resignable: boolean;
  /** Lamports the network charges for the message (signatures and priority fee), when the node told. */
  fee: bigint | null;
  /** Program ids the message's instructions invoke (the allowed-programs policy reads them). */
  programs: string[];
  /** Every account the message names (static keys), fee payer first. */
  accounts: string[];
  /** Signatures the message requires (fee payer included). */
  requiredSignatures: number;
  /** Bytes of the wire transaction (the max_tx_data_size policy). */
  size: number;
}

/**
 * One Solana network, through all its RPC URLs (failover, timeouts, retries). Reads throw an AppError
 * `CHAIN_UNAVAILABLE` when no URL answers; `send` never throws for what a node says.
 * Building and signing refuse bad input with a ValidationError naming the problem.
 */
export interface SolanaChain {
  readonly network: string;
  /** Lamports. */
  balance(address: string): Promise<bigint>;
  latestBlockhash(commitment?: SolanaCommitment): Promise<SolanaBlockhash>;
  isBlockhashValid(blockhash: string): Promise<boolean>;
  /** Lamports for a compiled message (base64), or null when the node no longer knows its blockhash. */
  feeForMessage(messageBase64: string): Promise<bigint | null>;
  /** Runs the transaction without landing it (signatures not checked). */
  simulate(transactionBase64: string): Promise<SolanaSimulation>;
  send(transactionBase64: string): Promise<SolanaSendOutcome>;
  /** Searches the node's whole transaction history; null for an unknown signature. */
  signatureStatuses(signatures: string[]): Promise<Array<SolanaSignatureStatus | null>>;
  blockHeight(commitment?: SolanaCommitment): Promise<bigint>;
  /**
   * Shape B: the client's base64 wire transaction. Refused unless the relayer is its fee payer and every
   * other required signature is already there and valid; the relayer signs as fee payer, blockhash unchanged.
   */
  signTransaction(transactionBase64: string, signer: SolanaSigner): Promise<SignedSolanaTransaction>;
  /** The reference's `instructions` form: a legacy message, the relayer as fee payer, a fresh blockhash. */
  buildAndSign(instructions: SolanaInstructionSpec[], signer: SolanaSigner): Promise<SignedSolanaTransaction>;
  /** The same message with a fresh blockhash, signed again; refused when another signer is required. */
  resign(transactionBase64: string, signer: SolanaSigner): Promise<SignedSolanaTransaction>;
  /** One JSON-RPC request as given, through the failover URLs (the relayer's `rpc` route; the domain decides what may pass). */
  rawRequest(method: string, params: unknown): Promise<RawRpcAnswer>;
  health(): RpcUrlHealth[];
}

export interface SolanaChains {
  /** Throws when no Solana network has that name. */
  solana(network: string): SolanaChain;
}
