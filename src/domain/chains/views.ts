// The shapes of the relayer chain operations (status, balance, rpc, signing), as the reference answers them.

/** A JSON integer: a number when exact, else the integer's own digits (JSON.rawJSON), so u128 amounts stay exact in JSON. */
export type JsonInteger = number | { readonly rawJSON: string };

/** `GET /relayers/{id}/balance`: the smallest unit (wei, lamport, stroop), a JSON integer as the reference's u128. */
export interface RelayerBalance {
  balance: JsonInteger;
  unit: 'wei' | 'lamport' | 'stroop';
}

/** Whether the relayer's network answers: `available` false while every RPC URL of it is down (it waits, then resumes). */
export interface RpcAvailability {
  available: boolean;
  urls: number;
  urls_up: number;
  /** Set while unavailable: which network, the last error, and that transactions wait. */
  reason?: string;
  /** URLs that answer but accepted broadcasts their node never received: left out of broadcasts for a while (issue 40). */
  broadcast_warnings?: string[];
}

/**
 * The relayer's last balance check against its min_balance policy (relayers/balance-watch.ts), as stored: amounts as
 * decimal strings in the smallest unit. `sends_covered`: how many sends of `send_cost` the balance pays for before it
 * falls under min_balance (null when the cost cannot be told).
 */
export interface BalanceWatchView {
  level: 'ok' | 'low' | 'below_min_balance';
  balance: string;
  min_balance: string | null;
  warning_balance: string | null;
  send_cost: string | null;
  sends_covered: number | null;
  checked_at: string;
}

interface StatusCommon {
  /** Decimal string, smallest unit. */
  balance: string;
  /** Transactions in pending, sent or submitted (the reference's pending statuses). */
  pending_transactions_count: number;
  /** `confirmed_at` of the newest confirmed transaction, null when none. */
  last_confirmed_transaction_timestamp: string | null;
  system_disabled: boolean;
  paused: boolean;
  /** Ours: the reference's DisabledReason while `system_disabled` (BalanceCheckFailed while under min_balance). */
  disabled_reason: { type: string; details: string | string[] } | null;
  /** Ours: the network's RPC URLs as failover sees them. */
  rpc: RpcAvailability;
  /** Ours: the last balance check (null before the first); `balance` above is then this check's while the RPC is down. */
  balance_watch: BalanceWatchView | null;
}

/** `GET /relayers/{id}/status`, tagged by `network_type`: EVM adds `nonce` (next to use), Stellar `sequence_number` (on chain). */
export type RelayerStatus =
  | ({ network_type: 'evm' } & StatusCommon & { nonce: string })
  | ({ network_type: 'stellar' } & StatusCommon & { sequence_number: string })
  | ({ network_type: 'solana' } & StatusCommon);

/** `POST /relayers/{id}/sign` and `/sign-typed-data` (EVM): r and s as 64 hex digits, v 27 or 28, sig the 65 bytes; no 0x, as the reference. */
export interface EvmSignature {
  r: string;
  s: string;
  v: number;
  sig: string;
}

/** `POST /relayers/{id}/sign-transaction`: Stellar answers `signedXdr` + `signature` (base64), Solana `transaction` (base64) + `signature` (base58). */
export type SignedTransactionView =
  | { signedXdr: string; signature: string }
  | { transaction: string; signature: string };

export type JsonRpcId = string | number;

/** A JSON-RPC answer of the `rpc` route; `id` is absent when the request's id was null (as the reference). */
export interface JsonRpcAnswer {
  jsonrpc: '2.0';
  result?: unknown;
  error?: { code: number; message: string; description: string; data?: unknown };
  id?: JsonRpcId;
}

/**
 * Chain-facing operations of one relayer, validation included. The HTTP routes and the plugin sandbox
 * (`getRelayerStatus()`, `rpc()`, `signTransaction()`…) both call these. Inputs are raw (as received);
 * failures are AppErrors with the reason the HTTP API gives. Results are JSON-ready (`JsonInteger`).
 */
export interface RelayerChainOperations {
  getRelayerStatus(relayerId: string): Promise<RelayerStatus>;
  getRelayerBalance(relayerId: string): Promise<RelayerBalance>;
  /** A JSON-RPC request (`{ jsonrpc?, id?, method, params? }`); answered in JSON-RPC, node errors included. Bad input throws. */
  rpc(relayerId: string, request: unknown): Promise<JsonRpcAnswer>;
  /** EIP-191 personal message: `{ message }` (UTF-8 text). EVM only. */
  signData(relayerId: string, body: unknown): Promise<EvmSignature>;
  /** EIP-712: `{ domain_separator, hash_struct_message }`, 32 bytes of hex each. EVM only. */
  signTypedData(relayerId: string, body: unknown): Promise<EvmSignature>;
  /** Stellar `{ unsigned_xdr }`, Solana `{ transaction }` (base64, the relayer as fee payer); EVM is refused as the reference does. */
  signTransaction(relayerId: string, body: unknown): Promise<SignedTransactionView>;
}
