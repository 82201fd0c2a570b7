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
  | {
      status: 'rejected';
      signature: string;
      reason: SolanaSendRejection;
      message: string;
      error: SolanaTransactionError | null;
      logs: string[];
    }
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

/** One account of an instruction, as the message's header gives its role. */
export interface SolanaAccountRef {
  address: string;
  signer: boolean;
  writable: boolean;
}

/**
 * What the relayer reads in an instruction: a System Program transfer, an SPL Token transfer (Transfer or
 * TransferChecked, Token or Token-2022), an associated-token-account creation, or anything else.
 */
export type SolanaParsedInstruction =
  | { type: 'system_transfer'; from: string; to: string; lamports: bigint }
  | {
      type: 'token_transfer';
      source: string;
      destination: string;
      authority: string;
      amount: bigint;
      mint: string | null;
      decimals: number | null;
    }
  | { type: 'create_ata'; payer: string; ata: string; owner: string; mint: string }
  | { type: 'other' };

export interface SolanaInstructionView {
  program: string;
  accounts: SolanaAccountRef[];
  parsed: SolanaParsedInstruction;
  /** The same instruction in the reference's `instructions` form, to compose it into another message. */
  spec: SolanaInstructionSpec;
}

/** A wire transaction decoded, nothing signed or checked beyond its shape. */
export interface InspectedSolanaTransaction {
  feePayer: string;
  /** Accounts that must sign, fee payer first. */
  signers: string[];
  blockhash: string;
  instructions: SolanaInstructionView[];
  /** Every static account of the message, fee payer first. */
  accounts: string[];
  programs: string[];
  /** Accounts loaded from address lookup tables (v0): their addresses are not in the message. */
  lookupAccounts: number;
  /** Bytes of the wire transaction. */
  size: number;
  /** The compiled message in base64, as `feeForMessage` takes it. */
  message: string;
}

/** An SPL token account (Token or Token-2022), read from the chain. */
export interface SplTokenAccount {
  address: string;
  mint: string;
  owner: string;
  amount: bigint;
  frozen: boolean;
  /** The token program that owns it. */
  program: string;
}

export interface SplMint {
  address: string;
  decimals: number;
  program: string;
}

/** A transaction the relayer composed (fee payer, fresh blockhash), not signed yet. */
export interface ComposedSolanaTransaction {
  /** Base64 wire transaction, every signature empty. */
  transaction: string;
  blockhash: string;
  lastValidBlockHeight: bigint;
  /** Lamports for the message; null when the node no longer knows the blockhash. */
  fee: bigint | null;
}

/** A Jupiter quote (its documented `GET /swap/v1/quote` fields), amounts in the smallest units. */
export interface SolanaSwapQuote {
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  outAmount: bigint;
  /** outAmount less the slippage: the least the swap may give. */
  otherAmountThreshold: bigint;
  slippageBps: number;
  /** The quote as Jupiter sent it, for its swap API. */
  raw: unknown;
}

/** The swap API's answer: a transaction for the relayer to sign (base64) and its last valid block height. */
export interface SolanaSwapTransaction {
  transaction: string;
  lastValidBlockHeight: bigint;
}

/**
 * The reference's price and swap source (Jupiter; on networks named devnet and testnet a 1:1 stand-in, as the
 * reference). Failures are AppErrors `CHAIN_UNAVAILABLE` naming the source, never its URL's secrets.
 */
export interface SolanaDex {
  /** Quote for selling `amount` of `inputMint` for `outputMint`. */
  quote(inputMint: string, outputMint: string, amount: bigint, slippagePercent: number): Promise<SolanaSwapQuote>;
  /** A swap transaction for that quote, paid and signed by `user`. */
  swapTransaction(
    quote: SolanaSwapQuote,
    user: string,
    options: {
      priorityLevel?: string | undefined;
      priorityFeeMaxLamports?: bigint | undefined;
      dynamicComputeUnitLimit?: boolean | undefined;
    },
  ): Promise<SolanaSwapTransaction>;
}

/** A message built and about to be signed: its facts, and `wire`, the transaction with the relayer's signature slot still empty. */
export type UnsignedSolanaTransaction = Omit<SignedSolanaTransaction, 'signature' | 'transaction'> & { wire: string };

/**
 * What the caller checks (the relayer's policies) between building a message and signing it; a throw stops the
 * signature. A throw carrying `staleBlockhash: true` says the node did not know the message's blockhash: where the
 * relayer chose it (a build or a re-sign), the chain builds again with a fresh one (twice at most), for a node behind
 * its peers (or a blockhash that expired while it was built) is no fault of the transaction.
 */
export type PreSignCheck = (unsigned: UnsignedSolanaTransaction) => Promise<void> | void;

declare const approvedByGate: unique symbol;
/**
 * A PreSignCheck made by the signing gate (src/domain/signers/gate.ts), its only maker: the relayer's policies, its
 * balance and a simulation. Every signing method below requires one, so the type checker proves no signature of a
 * relayer's key is made around the gate (test/architecture/imports.test.ts proves no other module makes one).
 */
export type SigningApproval = PreSignCheck & { readonly [approvedByGate]: true };

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
  /** Through every RPC URL that takes submissions at once: submitted if any node took it, else the first refusal. */
  send(transactionBase64: string): Promise<SolanaSendOutcome>;
  /**
   * A signature `send` got accepted is unknown past its blockhash's life: each URL that accepted it as new is asked
   * for it directly, and one whose network does not know it takes no submission for a while (shown in health()).
   * Returns how many URLs were taken out.
   */
  sendDidNotLand?(signature: string): Promise<number>;
  /** Searches the node's whole transaction history; null for an unknown signature. */
  signatureStatuses(signatures: string[]): Promise<Array<SolanaSignatureStatus | null>>;
  blockHeight(commitment?: SolanaCommitment): Promise<bigint>;
  /**
   * Shape B: the client's base64 wire transaction. Refused unless the relayer is its fee payer and every
   * other required signature is already there and valid; the relayer signs as fee payer, blockhash unchanged.
   */
  signTransaction(
    transactionBase64: string,
    signer: SolanaSigner,
    approval: SigningApproval,
  ): Promise<SignedSolanaTransaction>;
  /** The reference's `instructions` form: a legacy message, the relayer as fee payer, a fresh blockhash. */
  buildAndSign(
    instructions: SolanaInstructionSpec[],
    signer: SolanaSigner,
    approval: SigningApproval,
  ): Promise<SignedSolanaTransaction>;
  /** The same message with a fresh blockhash, signed again; refused when another signer is required. */
  resign(transactionBase64: string, signer: SolanaSigner, approval: SigningApproval): Promise<SignedSolanaTransaction>;
  /** Decodes a base64 wire transaction (ValidationError with the reason when it is not one). */
  inspect(transactionBase64: string): InspectedSolanaTransaction;
  /** The SPL token account at `address`, or null when there is none (or it is not a token account). */
  tokenAccount(address: string): Promise<SplTokenAccount | null>;
  /** The SPL mint at `address`, or null when there is none. */
  mint(address: string): Promise<SplMint | null>;
  /** Lamports that keep an account of `bytes` data rent-exempt. */
  rentExemption(bytes: number): Promise<bigint>;
  /** The associated token account of `owner` for `mint`. */
  associatedTokenAddress(owner: string, mint: SplMint): Promise<string>;
  /**
   * `amount` of `mint` from `owner`'s associated token account to `recipient`'s (TransferChecked, `owner` signs),
   * preceded by the creation of the recipient's account, paid by `payer`, when `createRecipient`.
   */
  splTransfer(args: {
    owner: string;
    recipient: string;
    mint: SplMint;
    amount: bigint;
    payer: string;
    createRecipient: boolean;
  }): Promise<SolanaInstructionSpec[]>;
  /** A legacy message of `instructions` paid by `feePayer` with a fresh blockhash; other signers allowed, nothing signed. */
  compose(instructions: SolanaInstructionSpec[], feePayer: string): Promise<ComposedSolanaTransaction>;
  /** Signs as fee payer a transaction the relayer composed; the other signers sign after (their slots stay empty). */
  signComposed(
    transactionBase64: string,
    signer: SolanaSigner,
    approval: SigningApproval,
  ): Promise<SignedSolanaTransaction>;
  /** The network's token price and swap source. */
  readonly dex: SolanaDex;
  /** One JSON-RPC request as given, through the failover URLs (the relayer's `rpc` route; the domain decides what may pass). */
  rawRequest(method: string, params: unknown): Promise<RawRpcAnswer>;
  health(): RpcUrlHealth[];
}

export interface SolanaChains {
  /** Throws when no Solana network has that name. */
  solana(network: string): SolanaChain;
}
