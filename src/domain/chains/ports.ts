// What the domain needs from an EVM chain; src/chains/evm implements it over viem (the domain never imports an RPC client).

export type Hex = `0x${string}`;
export type Speed = 'fastest' | 'fast' | 'average' | 'safeLow';
export const SPEEDS: readonly Speed[] = ['safeLow', 'average', 'fast', 'fastest'];

/**
 * Prices per speed, from the network: EIP-1559 (networks with the `eip1559` feature) from
 * `eth_feeHistory` reward percentiles and the next block's base fee, legacy from `eth_gasPrice`.
 * Each speed is at least as high as the one before it.
 */
export type FeeSuggestions =
  | {
      type: 'eip1559';
      baseFeePerGas: bigint;
      speeds: Record<Speed, { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
    }
  | { type: 'legacy'; speeds: Record<Speed, { gasPrice: bigint }> };

/** A call or transaction to simulate (gas estimation). */
export interface CallRequest {
  from: Hex;
  to: Hex | null;
  data: Hex | null;
  value: bigint;
}

/** Why a transaction reverted, decoded from the revert data of a replay. */
export interface RevertReason {
  /**
   * error: `Error(string)`; panic: `Panic(uint256)`; custom: another selector; empty: no revert data
   * (out of gas, bare `revert()`); unknown: the replay did not revert (state changed within the block).
   */
  kind: 'error' | 'panic' | 'custom' | 'empty' | 'unknown';
  /** Human text: the string, the panic's meaning, `custom error 0x…`, or the node's message. */
  message: string;
  /** The raw revert data (null when empty). */
  data: Hex | null;
}

export type GasEstimate = { ok: true; gas: bigint } | { ok: false; reason: string; revert: RevertReason | null };

/** How a node refused a raw transaction. `other` keeps the node's own message. */
export type BroadcastRejection =
  | 'nonce_too_low'
  | 'nonce_too_high'
  | 'insufficient_funds'
  | 'underpriced'
  | 'replacement_underpriced'
  | 'intrinsic_gas_too_low'
  | 'other';

/**
 * The outcome of one `eth_sendRawTransaction`. "already known", and "replacement underpriced" or
 * "nonce too low" while the node knows our own hash, are `submitted` with `alreadyKnown`.
 * `unavailable`: no URL answered, so the transaction may or may not have reached a node.
 */
export type BroadcastOutcome =
  | { status: 'submitted'; hash: Hex; alreadyKnown: boolean }
  | { status: 'rejected'; reason: BroadcastRejection; message: string; code: number | null }
  | { status: 'unavailable'; message: string };

/** A transaction as a node knows it; `blockNumber` null while pending. */
export interface ChainTransaction {
  hash: Hex;
  from: Hex;
  nonce: number;
  blockNumber: bigint | null;
  blockHash: Hex | null;
  /** What it does and offers, where the node says (an older version mined describes the record by this). */
  content?: ChainTransactionContent;
}

export interface ChainTransactionContent {
  to: Hex | null;
  input: Hex;
  value: bigint;
  gas: bigint;
  /** Legacy: its gas price; EIP-1559: null, with the two caps. */
  gasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
}

export interface Receipt {
  hash: Hex;
  /** The sender, where the node says (eth_getBlockReceipts and eth_getTransactionReceipt do). */
  from?: Hex;
  status: 'success' | 'reverted';
  blockNumber: bigint;
  /** Compare with `blockHash(blockNumber)` to see whether the block is still canonical. */
  blockHash: Hex;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
}

/**
 * A node's answer to a raw JSON-RPC request (the relayer's `rpc` route): its `result`, or its JSON-RPC
 * `error` as sent. Adapters throw CHAIN_UNAVAILABLE instead when no URL answered at all.
 */
export type RawRpcAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** One RPC URL's state, as the failover sees it. `url` is masked (no path or key). */
export interface RpcUrlHealth {
  url: string;
  up: boolean;
  lastError: string | null;
  /** Duration of the last answered request. */
  latencyMs: number | null;
  /** When the URL last answered or failed (ISO 8601). */
  checkedAt: string | null;
  /** Set only while false: the URL answers, but broadcasts (submissions) it accepted never reached its node (broadcastError says which). */
  broadcastsUp?: false;
  broadcastError?: string | null;
}

/**
 * One EVM network, through all its RPC URLs (failover, timeouts, retries). Reads and gas estimation
 * throw an AppError `CHAIN_UNAVAILABLE` when no URL answers or the node refuses; `broadcast` never
 * throws for what a node says (see BroadcastOutcome).
 */
export interface EvmChain {
  readonly network: string;
  readonly chainId: number;
  /** Throws when the node's `eth_chainId` differs from the configured one (and on no answer). Remembered once it matched. */
  checkChainId(): Promise<void>;
  balance(address: Hex): Promise<bigint>;
  /** `latest`: mined transactions; `pending`: plus those in the node's pool. */
  nonces(address: Hex): Promise<{ latest: number; pending: number }>;
  /** Cached for a fraction of a block (or the network's `gas_price_cache.stale_after_ms`). */
  fees(): Promise<FeeSuggestions>;
  estimateGas(call: CallRequest): Promise<GasEstimate>;
  /**
   * `hash`: keccak256 of `raw`, when the caller holds it already (a record's), so it is not hashed again. With several
   * RPC URLs it goes to every one that answers (a provider that accepts and never forwards cannot hold it back).
   */
  broadcast(raw: Hex, hash?: Hex): Promise<BroadcastOutcome>;
  /**
   * A broadcast accepted earlier did not land within its deadline: each URL that accepted `hash` is asked whether its
   * node knows it, and one that does not is taken out of the broadcasts for a while (shown in health()). Returns how
   * many URLs were taken out.
   */
  broadcastDidNotLand?(hash: Hex): Promise<number>;
  /** null: the node does not know the hash (never arrived, dropped, or reorged out). */
  transaction(hash: Hex): Promise<ChainTransaction | null>;
  receipt(hash: Hex): Promise<Receipt | null>;
  /** Every receipt of a block (`eth_getBlockReceipts`): one call for a block's worth of transactions. null past the head. */
  blockReceipts(number: bigint): Promise<Receipt[] | null>;
  blockNumber(): Promise<bigint>;
  /** The canonical block hash at `number`, or null past the head. */
  blockHash(number: bigint): Promise<Hex | null>;
  /**
   * OP-stack networks: the L1 data fee (wei) of a transaction, from the chain's GasPriceOracle predeploy
   * (`getL1Fee(bytes)` at 0x420000000000000000000000000000000000000F) given the unsigned serialized transaction.
   */
  l1Fee(unsigned: Hex): Promise<bigint>;
  /** Replays a mined transaction with `eth_call` on its block's parent state and decodes the revert data. */
  revertReason(hash: Hex): Promise<RevertReason | null>;
  /** One JSON-RPC request as given, through the failover URLs (the relayer's `rpc` route; the domain decides what may pass). */
  rawRequest(method: string, params: unknown): Promise<RawRpcAnswer>;
  health(): RpcUrlHealth[];
}

/** The configured networks' chains, by network name. */
export interface Chains {
  /** Throws when no EVM network has that name. */
  evm(network: string): EvmChain;
  /** The network's chain reached through other RPC URLs (a relayer's `custom_rpc_urls`); one adapter per URL list. */
  evmVia?(network: string, urls: ReadonlyArray<{ url: string; weight: number }>): EvmChain;
}
