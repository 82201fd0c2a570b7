// The one door between the HTTP process (src/plugin-host/) and the runtime's rooms (runtime/process, runtime/worker,
// runtime/isolate): message shapes and constants only, no code (what both sides run is in runtime/common/). Whatever
// arrives through it is checked by the side that receives it.
// The runtime's wire protocol: every message between the HTTP process, the runtime main thread and its workers.
// Plain data only (structured clone / 'advanced' IPC): errors travel as ErrorData, never as class instances.
//
//   HTTP process (src/plugin-host/: call-protocol.ts) runtime process (runtime/process/server.ts)           worker thread (runtime/worker/worker.ts)
//   ── ParentMessage 'call' ─────────────────────▶ registry lookup ── WorkerTask (piscina) ───▶ isolate: run(inputJson)
//   ◀─ ChildMessage 'host-call' ───────────────── ◀── WorkerHostRequest (BroadcastChannel) ──── api.* / kv.* from the sandbox
//   ── ParentMessage 'host-reply' ──────────────▶ ── reply on the worker's own channel ───────▶ resolves in the isolate
//   ◀─ ChildMessage 'result' ──────────────────── ◀── WorkerResult ───────────────────────────── result JSON + logs + traces
//   ◀─ ChildMessage 'host-cancel' ─────────────── ◀── 'cancel' when a call ends with host calls still out
//   ◀─ ChildMessage 'health' (every second) ───── ◀── 'pong' answers to the watchdog's pings ─── event loop alive
//   ◀─ fd 4 line { oom } written synchronously by a worker right before the process kills itself on a catastrophic OOM
//
// Inside a worker, the isolate is entered only by the host (runtime/worker/sandbox.ts: `run`, `deliver`, each an async
// apply with a CPU timeout); the isolate talks back only with fire-and-forget messages of primitives.

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
  /** Writes the call's console lines to the service log (the reference's forward_logs), whatever emit_logs says. */
  forward_logs: boolean;
  config: Record<string, unknown>;
  /** Operator-only (config file entry only): origins the plugin's `fetch` may reach; none by default. */
  allowed_origins: string[];
  /** Operator-only (config file entry only): the plugin's own `process.env` entries, over the service's variables it receives. */
  env: Record<string, string>;
  /**
   * Operator-only (config file entry only): names of the service's variables the plugin receives besides those its
   * code names (`process.env.NAME`); never a credential of the service (runtime/process/plugin-env.ts).
   */
  service_env: string[];
  /** Operator-only (config file entry or environment, never the plugin file): calls of this plugin running at once. */
  max_concurrent_calls: number;
  /** Operator-only: calls of this plugin waiting for a slot; beyond, calls answer PLUGIN_BUSY. */
  max_queued_calls: number;
  /** Operator-only: KV quota of this plugin's namespace (keys, and bytes of keys + values). */
  kv_max_keys: number;
  kv_max_bytes: number;
}

/** The operator-only settings: a plugin file cannot raise its own share. */
export const OPERATOR_SETTINGS = ['max_concurrent_calls', 'max_queued_calls', 'kv_max_keys', 'kv_max_bytes'] as const;
export type OperatorSettings = Pick<PluginSettings, (typeof OPERATOR_SETTINGS)[number]>;

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
  max_concurrent_calls?: number;
  max_queued_calls?: number;
  kv_max_keys?: number;
  kv_max_bytes?: number;
  allowed_origins?: string[];
  env?: Record<string, string>;
  service_env?: string[];
}

export type ContextMode = 'warm' | 'fresh';

/**
 * Every bound on what crosses out of an isolate. Each is checked inside the sandbox before the copy (by the
 * prelude, with intrinsics captured before plugin code ran) and again on the host side, on what actually arrived.
 */
export interface RuntimeLimits {
  maxResultBytes: number;
  maxLogLines: number;
  maxLogBytes: number;
  maxLogLineBytes: number;
  maxApiCalls: number;
  /** JSON text of one kv value; checked in the sandbox before it is copied out (the store checks bytes again). */
  maxKvValueBytes: number;
  maxKvKeyLength: number;
  /** JSON text of one host call's arguments. */
  maxHostArgBytes: number;
  /** All host-call arguments of one plugin call together. */
  maxHostArgBytesPerCall: number;
  maxErrorMessageChars: number;
  maxErrorDetailsBytes: number;
  /** One trace entry's payload (JSON); larger payloads are replaced by `{ truncated: true, bytes }`. */
  maxTraceEntryBytes: number;
  /** All trace payloads of one call; past it, payloads are replaced the same way. */
  maxTraceBytes: number;
  /** Timers (setTimeout/setInterval) pending at once in one call. */
  maxTimers: number;
  /** One fetch's request body (bytes; base64 on the wire, so it fits maxHostArgBytes). */
  maxFetchRequestBytes: number;
  /** One fetch's response body. */
  maxFetchResponseBytes: number;
  /** All fetch response bodies of one call together. */
  maxFetchBytesPerCall: number;
  /** crypto.subtle operations of one call (they do not count as api calls). */
  maxCryptoOps: number;
}

/** Defaults of the operator-only per-plugin settings (environment), used where the config entry is silent. */
export type PluginDefaults = OperatorSettings;

/** A plugin that crashed the runtime too often: calls answer PLUGIN_QUARANTINED until its bundle changes. */
export interface Quarantined {
  hash: string;
  reason: string;
}

/** What the runtime keeps of a loaded plugin across its own restarts (held by the HTTP process meanwhile). */
export interface CachedPlugin {
  id: string;
  path: string;
  hash: string;
  /** Omitted when the HTTP process already holds this hash's code. */
  code?: string;
  /** Every file the bundle was built from, with what it looked like then: unchanged stamps skip esbuild. */
  inputs: Array<[file: string, stamp: string]>;
  /** The plugin file's own `settings`, as inspected in the sandbox (JSON). */
  fileSettings: string;
}

export interface RuntimeOptions {
  pluginsDir: string;
  plugins: ConfiguredPlugin[];
  contextMode: ContextMode;
  threads: number;
  concurrency: number;
  maxQueue: number;
  limits: RuntimeLimits;
  defaults: PluginDefaults;
  /** Plugins that crashed the runtime too often (or while loading): id → bundle hash and why. */
  quarantine: Record<string, Quarantined>;
  /** The registry of the previous runtime process: unchanged plugins are served at once, without esbuild or inspection. */
  cache: CachedPlugin[];
  /** Fault injection, set only by a test through the app's overrides (never by configuration). */
  faults?: RuntimeFaults;
  /** The service's environment without its credentials (withheld by the HTTP process): each plugin receives the names its code names or its entry lists. */
  serviceEnv?: Record<string, string>;
}

/**
 * Faults a test injects to prove the runtime's defences (AppOverrides `runtimeFaults` in src/app.ts): they reach the
 * runtime only in its start message, never through configuration or the environment.
 */
export interface RuntimeFaults {
  /** The worker that gets a call of this plugin blocks its event loop (proves the watchdog). */
  stallWorkerOn?: string;
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
  /** A standby process: boot the pool now, serve later (its 'init' carries the registry). */
  | { t: 'prepare'; options: RuntimeOptions }
  | { t: 'init'; options: RuntimeOptions }
  /** The operator's plugin entries changed (PATCH /api/v1/plugins/{id}): settle every loaded plugin again. */
  | { t: 'configure'; plugins: ConfiguredPlugin[] }
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
  | 'relayer.getRelayerStatus'
  | 'relayer.rpc'
  | 'relayer.signTransaction'
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
  /** The call that made host call `id` has ended: stop its work (pollers), its reply would be dropped anyway. */
  | { t: 'host-cancel'; id: number }
  /** Sent every second: the pool can serve when at least one worker answers its pings. */
  | { t: 'health'; workers: number; responsive: number }
  /** A worker stopped answering its pings and is being replaced. */
  | { t: 'worker-stalled' }
  /** Plugins (re)bundled since the last message, for the next runtime process's warm start. */
  | { t: 'cache'; plugins: CachedPlugin[] }
  | { t: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; data?: Record<string, unknown> }
  | { t: 'batch'; msgs: ChildMessage[] };

/** Host operations a plugin may ask for; anything else coming out of an isolate is dropped. */
export const HOST_OPS: ReadonlySet<string> = new Set<HostOp>([
  'relayer.getRelayer',
  'relayer.getRelayerStatus',
  'relayer.rpc',
  'relayer.signTransaction',
  'relayer.sendTransaction',
  'relayer.getTransaction',
  'relayer.listTransactions',
  'relayer.replaceTransaction',
  'relayer.cancelTransaction',
  'relayer.waitTransaction',
  'kv.get',
  'kv.set',
  'kv.del',
  'kv.exists',
  'kv.listKeys',
  'kv.clear',
  'kv.lock',
  'kv.unlock',
]);

/** Line written on fd 4 by a worker right before the runtime process kills itself. */
export interface OomReport {
  oom: true;
  plugin: string;
  hash: string;
  calls: number[];
  inspect: boolean;
}

export const OOM_FD = 4;

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
  /** The egress policy: origins `fetch` may reach (operator-only `allowed_origins`). */
  allowedOrigins: string[];
  /** JSON of the plugin's `process.env` (operator-only `env`); the same for every call of one bundle. */
  env: string;
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

export type InspectResult = { ok: true; settings: string; hasHandler: boolean } | { ok: false; error: ErrorData };

export interface WorkerData {
  contextMode: ContextMode;
  concurrency: number;
  limits: RuntimeLimits;
  faults?: RuntimeFaults;
}

/** Worker → main on HOST_CHANNEL. */
export type WorkerHostRequest =
  | { t: 'host'; worker: number; id: number; plugin: string; op: HostOp; args: string; deadline: number }
  | { t: 'code'; worker: number; id: number; hash: string }
  /** The call that made these requests ended: nobody waits for their replies any more. */
  | { t: 'cancel'; worker: number; ids: number[] }
  /** `tid`: the worker's OS thread id, so its event loop keeps normal CPU priority (runtime/process/priorities.ts). */
  | { t: 'pong'; worker: number; seq: number; tid: number };

/**
 * On RELEASE_CHANNEL, both ways. The main thread, once no call has completed for a few seconds after some did, asks
 * every worker to give back what the load left ('release'); each answers what it did ('released': its V8 heap
 * before and after, in bytes, the same when it had not grown enough to collect; the idle isolates it disposed).
 */
export type WorkerRelease =
  | { t: 'release' }
  | { t: 'released'; worker: number; heapBefore: number; heapAfter: number; isolates: number };
export const RELEASE_CHANNEL = 'relaybox:runtime:release';

/** Main → worker on REPLY_CHANNEL + the worker's number: a reply (the JSON text handed to the sandbox, or the code), or a ping. */
export type WorkerHostReply = { id: number; reply: string } | { ping: number };

export const HOST_CHANNEL = 'relaybox:runtime:host';
/** Each worker's own channel is this name followed by its thread id. */
export const REPLY_CHANNEL = 'relaybox:runtime:reply:';

export const PLUGIN_ID = /^[A-Za-z0-9_-]{1,64}$/;
