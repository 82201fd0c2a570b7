// The runtime's wire protocol: every message between the HTTP process, the runtime main thread and its workers.
// Plain data only (structured clone / 'advanced' IPC): errors travel as ErrorData, never as class instances.
//
//   HTTP process (src/runtime-client.ts)          runtime process (runtime/server.ts)           worker thread (runtime/worker.ts)
//   ── ParentMessage 'call' ─────────────────────▶ registry lookup ── WorkerTask (piscina) ───▶ isolate: run(inputJson)
//   ◀─ ChildMessage 'host-call' ───────────────── ◀── WorkerHostRequest (BroadcastChannel) ──── api.* / kv.* from the sandbox
//   ── ParentMessage 'host-reply' ──────────────▶ ── reply on the worker's own channel ───────▶ resolves in the isolate
//   ◀─ ChildMessage 'result' ──────────────────── ◀── WorkerResult ───────────────────────────── result JSON + logs + traces
//   ◀─ fd 4 line { oom } written synchronously by a worker right before the process kills itself on a catastrophic OOM

/** An error crossing a boundary. `status` is the HTTP status the client should answer. */
export interface ErrorData {
  code: string;
  message: string;
  status: number;
  details?: Record<string, unknown>;
  /** Seconds; set for retryable runtime conditions (queue full, restart). */
  retryAfter?: number;
}

export interface LogEntry {
  level: string;
  message: string;
}

export interface TraceEntry {
  method: string;
  relayerId: string;
  requestId: string;
  payload: unknown;
}

/** Effective per-plugin settings: plugin file `settings`, overridden by the config file entry. */
export interface PluginSettings {
  /** Seconds. */
  timeout: number;
  memory_mb: number;
  emit_logs: boolean;
  emit_traces: boolean;
  allow_get_invocation: boolean;
  raw_response: boolean;
  config: Record<string, unknown>;
}

/** What the runtime reports about one plugin (GET /api/v1/plugins). */
export interface PluginInfo {
  id: string;
  path: string;
  state: 'ready' | 'error';
  error?: ErrorData;
  hash?: string;
  settings: PluginSettings;
}

/** A plugin entry of the config file (reference-product fields). */
export interface ConfiguredPlugin {
  id: string;
  path?: string;
  timeout?: number;
  emit_logs?: boolean;
  emit_traces?: boolean;
  raw_response?: boolean;
  allow_get_invocation?: boolean;
  forward_logs?: boolean;
  memory_mb?: number;
  config?: Record<string, unknown>;
}

export type ContextMode = 'warm' | 'fresh';

export interface RuntimeLimits {
  maxResultBytes: number;
  maxLogLines: number;
  maxLogBytes: number;
  maxLogLineBytes: number;
  maxApiCalls: number;
  /** JSON text of one kv value; checked in the sandbox before it is copied out (the store checks bytes again). */
  maxKvValueBytes: number;
}

export interface RuntimeOptions {
  pluginsDir: string;
  plugins: ConfiguredPlugin[];
  contextMode: ContextMode;
  threads: number;
  concurrency: number;
  maxQueue: number;
  limits: RuntimeLimits;
  /** Plugins whose load killed the runtime (catastrophic OOM): id → bundle hash. */
  quarantine: Record<string, string>;
}

/** The call as the plugin sees it, minus `api`/`kv`/`config`; JSON-encoded once by the client. */
export interface CallInput {
  params: unknown;
  headers: Record<string, string[]>;
  route: string;
  method: string;
  query: Record<string, string[]>;
  requestId: string;
}

// ── HTTP process → runtime process ────────────────────────────────────────────
export type ParentMessage =
  | { t: 'init'; options: RuntimeOptions }
  | { t: 'call'; id: number; plugin: string; method: string; requestId: string; input: string }
  | { t: 'host-reply'; id: number; reply: string }
  | { t: 'shutdown' }
  | { t: 'batch'; msgs: ParentMessage[] };

// ── runtime process → HTTP process ────────────────────────────────────────────
export type CallOutcome =
  | { ok: true; result: string; raw: boolean; logs?: LogEntry[]; traces?: TraceEntry[] }
  | { ok: false; error: ErrorData; logs?: LogEntry[]; traces?: TraceEntry[] };

export type HostOp =
  | 'relayer.getRelayer'
  | 'relayer.sendTransaction'
  | 'relayer.getTransaction'
  | 'relayer.listTransactions'
  | 'relayer.replaceTransaction'
  | 'relayer.cancelTransaction'
  | 'relayer.waitTransaction'
  | 'kv.get'
  | 'kv.set'
  | 'kv.del'
  | 'kv.exists'
  | 'kv.listKeys'
  | 'kv.clear'
  | 'kv.lock'
  | 'kv.unlock';

export type ChildMessage =
  | { t: 'ready'; plugins: PluginInfo[] }
  | { t: 'plugins'; plugins: PluginInfo[] }
  | ({ t: 'result'; id: number } & CallOutcome)
  /** `args` is JSON; the reply is the JSON text `{"ok":true,"value":…}` or `{"ok":false,"error":ErrorData}`. */
  | { t: 'host-call'; id: number; plugin: string; op: HostOp; args: string; deadline: number }
  | { t: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; data?: Record<string, unknown> }
  | { t: 'batch'; msgs: ChildMessage[] };

/** Line written on fd 4 by a worker right before the runtime process kills itself. */
export interface OomReport {
  oom: true;
  plugin: string;
  hash: string;
  calls: number[];
  inspect: boolean;
}

export const OOM_FD = 4;

/**
 * How the runtime process must be started. Measured under the soak's traffic, each V8 thread otherwise grows its
 * young generation to 64 MiB semi-spaces and glibc gives every isolated-vm thread its own malloc arena: runtime RSS
 * climbed past 550 MiB (kv traffic) instead of settling near 270 MiB, with no loss of throughput from the limits.
 */
export const RUNTIME_PROCESS = {
  // isolated-vm needs --no-node-snapshot on the process command line; it cannot go in a Worker's execArgv.
  execArgv: ['--no-node-snapshot', '--max-semi-space-size=2'],
  env: { MALLOC_ARENA_MAX: '2' },
} as const;
/** Young generation of each sandbox worker thread (Piscina `resourceLimits`); worker threads ignore the flag above. */
export const WORKER_YOUNG_GENERATION_MB = 6;

// ── runtime main thread ⇄ worker threads ─────────────────────────────────────
export interface CallTask {
  kind: 'call';
  callId: number;
  plugin: string;
  hash: string;
  input: string;
  config: string;
  requestId: string;
  timeoutMs: number;
  memoryMb: number;
  emitLogs: boolean;
  emitTraces: boolean;
}

export interface InspectTask {
  kind: 'inspect';
  plugin: string;
  hash: string;
  memoryMb: number;
  timeoutMs: number;
}

export type WorkerTask = CallTask | InspectTask;

export type WorkerResult =
  | { ok: true; result: string; logs?: LogEntry[]; traces?: TraceEntry[] }
  | { ok: false; error: ErrorData; logs?: LogEntry[]; traces?: TraceEntry[] };

export type InspectResult =
  | { ok: true; settings: string; hasHandler: boolean }
  | { ok: false; error: ErrorData };

export interface WorkerData {
  contextMode: ContextMode;
  concurrency: number;
  limits: RuntimeLimits;
}

/** Worker → main on HOST_CHANNEL. */
export type WorkerHostRequest =
  | { t: 'host'; worker: number; id: number; plugin: string; op: HostOp; args: string; deadline: number }
  | { t: 'code'; worker: number; id: number; hash: string };

/** Main → worker on replyChannel(worker). `reply` is the JSON text handed to the sandbox (or the code). */
export interface WorkerHostReply {
  id: number;
  reply: string;
}

export const HOST_CHANNEL = 'relaybox:runtime:host';
export const replyChannel = (worker: number) => `relaybox:runtime:reply:${worker}`;

export const PLUGIN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Coalesces the messages sent during one event-loop turn into one IPC write: under load each write is a
 * syscall on both sides, and they dominated the HTTP process's profile.
 */
export function createBatcher<M extends { t: string }>(write: (msg: M | { t: 'batch'; msgs: M[] }) => void): (msg: M) => void {
  let queue: M[] = [];
  const flush = () => {
    const msgs = queue;
    queue = [];
    write(msgs.length === 1 ? msgs[0]! : { t: 'batch', msgs });
  };
  return (msg) => {
    if (queue.push(msg) === 1) setImmediate(flush);
  };
}
