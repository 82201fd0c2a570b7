// In-sandbox implementation of `@openzeppelin/relayer-sdk`: what plugins written for the reference product import.
// Bundled into each plugin by runtime/bundler.ts; it must import nothing (no Node, no host).

export const Speed = Object.freeze({
  FASTEST: 'fastest',
  FAST: 'fast',
  AVERAGE: 'average',
  SAFE_LOW: 'safeLow',
} as const);
export type Speed = (typeof Speed)[keyof typeof Speed];

export interface PluginErrorOptions {
  code?: string;
  status?: number;
  details?: Record<string, unknown>;
}

/** The error a handler throws to answer `{ success: false, data: { code, details }, error: message }` with `status`. */
export class PluginError extends Error {
  code: string | undefined;
  status: number | undefined;
  details: Record<string, unknown> | undefined;
  constructor(message: string, options: PluginErrorOptions = {}) {
    super(message);
    this.name = 'PluginError';
    this.code = options.code;
    this.status = options.status;
    this.details = options.details;
  }
}

export function pluginError(message: string, options: PluginErrorOptions = {}): PluginError {
  return new PluginError(message, options);
}

export function isPluginError(err: unknown): err is PluginError {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'PluginError';
}

// Types of the context, for editors; erased at build time.
export type TransactionStatus = 'pending' | 'sent' | 'submitted' | 'mined' | 'confirmed' | 'failed' | 'expired' | 'canceled';

export interface TransactionRecord {
  id: string;
  relayer_id: string;
  status: TransactionStatus;
  [field: string]: unknown;
}

export interface SentTransaction extends TransactionRecord {
  wait(options?: { interval?: number; timeout?: number }): Promise<TransactionRecord>;
}

export interface Relayer {
  getRelayer(): Promise<Record<string, unknown>>;
  getRelayerStatus(): Promise<Record<string, unknown>>;
  sendTransaction(request: Record<string, unknown>): Promise<SentTransaction>;
  getTransaction(request: { transactionId: string }): Promise<TransactionRecord>;
  listTransactions(request?: { page?: number; per_page?: number }): Promise<{ items: TransactionRecord[]; pagination: Record<string, number> }>;
  replaceTransaction(transactionId: string, request: Record<string, unknown>): Promise<TransactionRecord>;
  cancelTransaction(transactionId: string): Promise<TransactionRecord>;
}

export interface PluginAPI {
  useRelayer(relayerId: string): Relayer;
  transactionWait(tx: { id: string; relayer_id: string }, options?: { interval?: number; timeout?: number }): Promise<TransactionRecord>;
}

export interface PluginKVStore {
  get<T = unknown>(key: string): Promise<T | null>;
  set(key: string, value: unknown, options?: { ttlSec?: number }): Promise<boolean>;
  del(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
  listKeys(pattern?: string): Promise<string[]>;
  clear(): Promise<number>;
  withLock<T>(key: string, fn: () => Promise<T>, options?: { ttlSec?: number; onBusy?: 'throw' | 'skip' }): Promise<T | null>;
}

export interface PluginContext<P = unknown> {
  params: P;
  api: PluginAPI;
  kv: PluginKVStore;
  headers: Record<string, string[]>;
  route: string;
  method: string;
  query: Record<string, string[]>;
  config: Record<string, unknown>;
  requestId: string;
}

export interface PluginSettings {
  emit_logs?: boolean;
  emit_traces?: boolean;
  timeout?: number;
  memory_mb?: number;
  allow_get_invocation?: boolean;
  raw_response?: boolean;
  config?: Record<string, unknown>;
}
