// The only door from src/ into runtime/: forks and supervises the runtime process, speaks runtime/protocol.ts,
// and serves the sandbox's calls back into the relayer API and the KV store.
import { fork, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { RelayerOperations } from '../domain/types.ts';
import { AppError, PluginError } from '../errors.ts';
import { KV_MAX_VALUE_BYTES, type KvQuota, type KvRepo } from '../store/kv-repo.ts';
import { createHostCallSession, type HostCallSession } from './host-calls.ts';
import { createCrashLedger } from './crash-ledger.ts';
import {
  OOM_FD,
  RUNTIME_PROCESS,
  createBatcher,
  type CachedPlugin,
  type CallInput,
  type ChildMessage,
  type ConfiguredPlugin,
  type ErrorData,
  type LogEntry,
  type OomReport,
  type ParentMessage,
  type PluginInfo,
  type RuntimeLimits,
  type RuntimeOptions,
  type TraceEntry,
} from '../../runtime/protocol.ts';

export type { CallInput, ConfiguredPlugin, LogEntry, PluginInfo, PluginSettings, TraceEntry } from '../../runtime/protocol.ts';

const SERVER_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'runtime', 'process', 'server.ts');
const STARTUP_TIMEOUT_MS = 20_000;
const RETRY_AFTER_SECONDS = 1;
/** The standby runtime is forked this long after the active one is ready, so as not to slow its start. */
const STANDBY_DELAY_MS = 5_000;
/** Health reports come every second; this long without one means the runtime's main thread is stuck. */
const HEALTH_STALE_MS = 3_000;

/** Every bound on what crosses out of the sandbox (documented in docs/plugins.md, "Limits"). */
export const RUNTIME_LIMITS: RuntimeLimits = Object.freeze({
  maxResultBytes: 1024 * 1024,
  maxLogLines: 200,
  maxLogBytes: 64 * 1024,
  maxLogLineBytes: 4096,
  maxApiCalls: 100,
  maxKvValueBytes: KV_MAX_VALUE_BYTES,
  maxKvKeyLength: 512,
  maxHostArgBytes: KV_MAX_VALUE_BYTES + 64 * 1024,
  maxHostArgBytesPerCall: 8 * 1024 * 1024,
  maxErrorMessageChars: 4096,
  maxErrorDetailsBytes: 64 * 1024,
  maxTraceEntryBytes: 16 * 1024,
  maxTraceBytes: 256 * 1024,
  maxTimers: 1000,
  maxFetchRequestBytes: 768 * 1024,
  maxFetchResponseBytes: 4 * 1024 * 1024,
  maxFetchBytesPerCall: 16 * 1024 * 1024,
  maxCryptoOps: 1000,
});
/** Bytes of one host call's reply handed back into the sandbox (a listKeys of 10,000 long keys fits). */
const MAX_HOST_REPLY_BYTES = 8 * 1024 * 1024;

export interface PluginCallResult {
  /** The plugin's result as JSON text, serialized and size-checked inside the sandbox. */
  result: string;
  /** `raw_response`: answer the result itself, without the envelope. */
  raw: boolean;
  metadata?: { logs?: LogEntry[]; traces?: TraceEntry[] };
}

export interface RuntimeClient {
  /** Pid of the runtime process while it runs (tests kill it to prove recovery). */
  readonly pid: number | undefined;
  /**
   * Runs one plugin call in the sandbox. Rejects with a PluginError for the plugin's own failures and
   * limits (TIMEOUT, MEMORY_LIMIT_EXCEEDED, COMPILE_ERROR, …), an AppError for PLUGIN_NOT_FOUND,
   * METHOD_NOT_ALLOWED and RUNTIME_UNAVAILABLE (503 with Retry-After).
   * @example await runtime.call('echo', { params: { hi: 1 }, headers: {}, route: '', method: 'POST', query: {}, requestId: 'r1' })
   */
  call(pluginId: string, input: CallInput): Promise<PluginCallResult>;
  /** The plugins the runtime last reported (kept while it restarts). */
  plugins(): PluginInfo[];
  /** Resolves once the runtime process is up and has loaded the plugins directory. */
  ready(): Promise<void>;
  /** True when the runtime is up and at least one of its workers answers (readiness). */
  serving(): boolean;
  /** Host calls (api/kv) running now on behalf of plugin calls; they end when their plugin call ends. */
  hostCallsInFlight(): number;
  /**
   * New operator entries for the plugins (settings changed through the API): applied at once, and at every restart.
   * Resolves once the runtime has reported its registry settled with them (or after 5 s, or at once when it is down).
   */
  configure(plugins: ConfiguredPlugin[]): Promise<void>;
  /**
   * Stops supervising at once (no restart from here on), keeps serving calls until `drained` settles (the app passes
   * "the HTTP requests in flight have ended"), then stops the runtime process.
   */
  close(drained?: Promise<unknown>): Promise<void>;
}

interface Pending {
  child: ChildProcess;
  plugin: string;
  resolve(result: PluginCallResult): void;
  reject(err: Error): void;
}

type HostCall = Extract<ChildMessage, { t: 'host-call' }>;

function unavailable(reason: string): AppError {
  return new AppError('RUNTIME_UNAVAILABLE', { reason, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The runtime's verdict as the client sees it. Re-checked here, field by field, whatever the runtime process sent:
 * an error status outside 400–599 becomes 500, a Retry-After is an integer of seconds or nothing.
 */
function toPluginFailure(pluginId: string, error: ErrorData, logs?: LogEntry[], traces?: TraceEntry[]): Error {
  const retryAfter = Number.isInteger(error.retryAfter) && error.retryAfter! >= 1 && error.retryAfter! <= 3600 ? String(error.retryAfter) : undefined;
  switch (error.code) {
    case 'PLUGIN_NOT_FOUND':
      return new AppError('PLUGIN_NOT_FOUND', { params: { id: pluginId } });
    case 'METHOD_NOT_ALLOWED':
      return new AppError('METHOD_NOT_ALLOWED', { reason: String(error.message).slice(0, 500) });
    case 'PLUGIN_BUSY':
      return new AppError('PLUGIN_BUSY', { params: { id: pluginId }, reason: String(error.message).slice(0, 500), headers: { 'Retry-After': retryAfter ?? String(RETRY_AFTER_SECONDS) } });
    case 'RUNTIME_BUSY':
    case 'RUNTIME_UNAVAILABLE':
      return new AppError('RUNTIME_UNAVAILABLE', { reason: String(error.message).slice(0, 500), headers: { 'Retry-After': retryAfter ?? String(RETRY_AFTER_SECONDS) } });
  }
  return new PluginError({
    code: typeof error.code === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(error.code) ? error.code : 'PLUGIN_ERROR',
    message: typeof error.message === 'string' ? error.message.slice(0, RUNTIME_LIMITS.maxErrorMessageChars + 16) : 'Plugin execution failed',
    status: Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : 500,
    details: isPlainObject(error.details) ? error.details : {},
    logs: Array.isArray(logs) ? logs : undefined,
    traces: Array.isArray(traces) ? traces : undefined,
    headers: retryAfter ? { 'Retry-After': retryAfter } : undefined,
  });
}

/** A call's answer from the runtime, checked once more on this side of the process boundary. */
function outcomeOf(pluginId: string, msg: Extract<ChildMessage, { t: 'result' }>): PluginCallResult | Error {
  const logs = Array.isArray(msg.logs) ? msg.logs : undefined;
  const traces = Array.isArray(msg.traces) ? msg.traces : undefined;
  if (!msg.ok) return toPluginFailure(pluginId, isPlainObject(msg.error) ? msg.error : { code: 'INTERNAL', message: 'malformed runtime answer', status: 500 }, logs, traces);
  if (typeof msg.result !== 'string' || msg.result.length > RUNTIME_LIMITS.maxResultBytes) {
    return new PluginError({ code: 'RESULT_TOO_LARGE', message: `Plugin result exceeds ${RUNTIME_LIMITS.maxResultBytes} bytes`, status: 500, details: {} });
  }
  const metadata = logs || traces ? { ...(logs ? { logs } : {}), ...(traces ? { traces } : {}) } : undefined;
  return { result: msg.result, raw: msg.raw === true, metadata };
}

/** What the supervisor reports as it goes (metrics); plain callbacks, so this file needs no metrics library. */
export interface RuntimeObserver {
  restarted(): void;
  /** Calls handed to the runtime and not answered yet (queued or running there). */
  inFlight(count: number): void;
  /** A sandbox worker stopped answering and was replaced. */
  workerStalled?(): void;
  /** A plugin was quarantined for crashing the runtime. */
  quarantined?(pluginId: string): void;
}

export async function createRuntimeClient(deps: {
  config: Config;
  logger: Logger;
  host: { relayers: RelayerOperations; kv: KvRepo };
  observer?: RuntimeObserver;
  /** The operator's plugin entries (default: the config file's; the app passes them with the stored API changes applied). */
  plugins?: ConfiguredPlugin[];
}): Promise<RuntimeClient> {
  const { config, host } = deps;
  const observer = deps.observer ?? { restarted() {}, inFlight() {} };
  const logger = deps.logger.child({ component: 'plugin-runtime' });
  const { kv } = host;
  const pending = new Map<number, Pending>();
  const rt = config.pluginRuntime;
  const crashes = createCrashLedger({ crashes: rt.quarantineCrashes, windowSec: rt.quarantineWindowSec });
  const configured = new Map(config.file.plugins.map((p) => [p.id, p]));
  let entries: ConfiguredPlugin[] = deps.plugins ?? config.file.plugins;
  /** configure() callers waiting for the runtime's next registry report. */
  const registryWaiters: Array<() => void> = [];
  const quotaOf = (pluginId: string): KvQuota => ({
    maxKeys: configured.get(pluginId)?.kv_max_keys ?? rt.kvMaxKeys,
    maxBytes: configured.get(pluginId)?.kv_max_bytes ?? rt.kvMaxBytes,
  });
  const hostCalls = (): HostCallSession =>
    createHostCallSession({ relayers: host.relayers, kv, logger, quotaOf, limits: { maxArgBytes: RUNTIME_LIMITS.maxHostArgBytes, maxReplyBytes: MAX_HOST_REPLY_BYTES } });
  /** The runtime's registry as last reported, for the next runtime process's warm start. */
  const cache = new Map<string, CachedPlugin>();
  let health = { at: 0, responsive: 0 };
  let registry: PluginInfo[] = [];
  let child: ChildProcess | undefined;
  let up = false;
  let closing = false;
  let nextId = 0;
  let failures = 0;
  let readyAt = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let standby: ChildProcess | undefined;
  const sessions = new Set<HostCallSession>();
  let standbyTimer: NodeJS.Timeout | undefined;
  let readyWaiters: Array<() => void> = [];

  const options = (): RuntimeOptions => ({
    pluginsDir: config.pluginsDir,
    plugins: entries.map((p) => ({ ...p })),
    contextMode: rt.contextMode,
    threads: rt.threads,
    concurrency: rt.concurrency,
    maxQueue: rt.maxQueue,
    limits: RUNTIME_LIMITS,
    defaults: { max_concurrent_calls: rt.maxConcurrentCalls, max_queued_calls: rt.maxQueuedCalls, kv_max_keys: rt.kvMaxKeys, kv_max_bytes: rt.kvMaxBytes },
    quarantine: crashes.quarantined(),
    cache: [...cache.values()],
    faultStallWorkerOn: rt.faultStallWorkerOn,
  });

  /** Keeps the newest bundle of each plugin; an entry without code reuses the code held for its hash. */
  function remember(plugins: CachedPlugin[]): void {
    for (const p of plugins) {
      const code = p.code ?? [...cache.values()].find((c) => c.hash === p.hash)?.code;
      if (code === undefined) cache.delete(p.id);
      else cache.set(p.id, { ...p, code });
    }
  }

  function send(target: ChildProcess, msg: ParentMessage): void {
    if (target.connected) target.send(msg);
  }
  /** Batched sends to the current child (calls, host replies): one IPC write per event-loop turn. */
  let batched: { child: ChildProcess; send: (msg: ParentMessage) => void } | undefined;
  function sendBatched(target: ChildProcess, msg: ParentMessage): void {
    if (batched?.child !== target) batched = { child: target, send: createBatcher<ParentMessage>((m) => send(target, m)) };
    batched.send(msg);
  }

  function onHostCall(from: ChildProcess, session: HostCallSession, msg: HostCall): void {
    session.run(msg).then((reply) => {
      if (reply !== undefined) sendBatched(from, { t: 'host-reply', id: msg.id, reply });
    });
  }

  function onMessage(from: ChildProcess, session: HostCallSession, msg: ChildMessage): void {
    switch (msg.t) {
      case 'batch':
        for (const m of msg.msgs) onMessage(from, session, m);
        return;
      case 'result': {
        const call = pending.get(msg.id);
        if (!call) return;
        pending.delete(msg.id);
        observer.inFlight(pending.size);
        const outcome = outcomeOf(call.plugin, msg);
        if (outcome instanceof Error) call.reject(outcome);
        else call.resolve(outcome);
        return;
      }
      case 'host-call':
        onHostCall(from, session, msg);
        return;
      case 'host-cancel':
        session.cancel(msg.id);
        return;
      case 'health':
        health = { at: Date.now(), responsive: msg.responsive };
        return;
      case 'worker-stalled':
        observer.workerStalled?.();
        return;
      case 'cache':
        remember(msg.plugins);
        return;
      case 'plugins':
        registry = msg.plugins;
        for (const id of cache.keys()) if (!registry.some((p) => p.id === id && p.hash)) cache.delete(id);
        for (const settled of registryWaiters.splice(0)) settled();
        return;
      case 'ready':
        registry = msg.plugins;
        up = true;
        readyAt = Date.now();
        health = { at: readyAt, responsive: rt.threads };
        logger.info({ pid: from.pid, plugins: registry.length, mode: config.pluginRuntime.contextMode }, 'plugin runtime ready');
        for (const w of readyWaiters) w();
        readyWaiters = [];
        prepareStandby();
        return;
      case 'log':
        logger[msg.level]({ ...msg.data }, msg.msg);
        return;
    }
  }

  /** Forks a runtime process and supervises it; it serves once sent 'init' (a standby gets 'prepare' first). */
  function spawn(): ChildProcess {
    const oomCalls = new Set<number>();
    const session = hostCalls();
    sessions.add(session);
    const proc = fork(SERVER_PATH, [], {
      execArgv: [...RUNTIME_PROCESS.execArgv],
      serialization: 'advanced',
      // fd 4: OOM reports, written synchronously by a worker right before the process ends.
      stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
      // Plugins cannot read the environment anyway; the runtime itself needs none of our secrets either.
      env: {
        ...RUNTIME_PROCESS.env,
        PATH: process.env.PATH ?? '',
        TMPDIR: process.env.TMPDIR ?? '/tmp',
        NODE_ENV: process.env.NODE_ENV ?? '',
        // Node's on-disk cache of compiled (and type-stripped) modules: a restart skips most of its boot work.
        NODE_COMPILE_CACHE: path.join(tmpdir(), 'relaybox-compile-cache'),
      },
    });
    const oomStream = proc.stdio[OOM_FD] as Readable | null;
    if (oomStream) {
      createInterface({ input: oomStream }).on('line', (line) => {
        try {
          const report = JSON.parse(line) as OomReport;
          for (const id of report.calls) oomCalls.add(id);
          logger.error({ plugin: report.plugin, calls: report.calls.length }, 'plugin exhausted sandbox memory: the runtime process is restarting');
          if (typeof report.plugin === 'string' && typeof report.hash === 'string' && crashes.record(report.plugin, report.hash, report.inspect === true)) {
            logger.error({ plugin: report.plugin }, 'plugin quarantined: it crashed the runtime too often; it stays so until its file changes');
            observer.quarantined?.(report.plugin);
          }
        } catch {
          // not a report
        }
      });
    }
    proc.on('message', (msg: ChildMessage) => onMessage(proc, session, msg));
    proc.on('error', (err) => logger.error({ err }, 'plugin runtime process error'));
    // 'close' comes after 'exit' and after fd 4 is drained, so OOM reports are already read; a grandchild
    // holding the inherited pipe could delay it, hence the fallback shortly after 'exit'.
    let gone = false;
    proc.on('exit', (code, signal) => setTimeout(() => onGone(code, signal), 500).unref());
    proc.on('close', (code, signal) => onGone(code, signal));
    const onGone = (code: number | null, signal: NodeJS.Signals | null) => {
      if (gone) return;
      gone = true;
      session.close();
      sessions.delete(session);
      if (proc === standby) {
        standby = undefined;
        return;
      }
      if (child === proc) {
        child = undefined;
        up = false;
      }
      rejectCalls(proc, (id) =>
        oomCalls.has(id)
          ? new PluginError({ code: 'MEMORY_LIMIT_EXCEEDED', message: 'Plugin exceeded its memory limit', status: 500, details: {} })
          : unavailable(closing ? 'the service is shutting down' : 'the plugin runtime restarted while this call was running; retry'),
      );
      // Shutting down: an exit is expected, never a reason to start another runtime.
      if (closing) return;
      logger.error({ code, signal }, 'plugin runtime process exited; restarting it');
      if (Date.now() - readyAt > 10_000) failures = 0;
      const delay = failures === 0 ? 0 : Math.min(5000, 100 * 2 ** failures);
      failures++;
      observer.restarted();
      restartTimer = setTimeout(start, delay);
    };
    return proc;
  }

  /**
   * Starts serving: promotes the standby if there is one (booted, its workers already up: a restart then takes
   * a fraction of a second with any number of plugins), else forks a process.
   */
  function start(): void {
    const proc = standby?.connected ? standby : spawn();
    if (proc !== standby) standby?.kill('SIGKILL');
    standby = undefined;
    child = proc;
    send(proc, { t: 'init', options: options() });
  }

  /** Keeps one booted runtime process in reserve, made once the active one has settled. */
  function prepareStandby(): void {
    clearTimeout(standbyTimer);
    if (!rt.standby) return;
    standbyTimer = setTimeout(() => {
      if (closing || standby || !up) return;
      standby = spawn();
      send(standby, { t: 'prepare', options: options() });
    }, STANDBY_DELAY_MS);
    standbyTimer.unref();
  }

  /** Fails the calls still waiting on `proc` (every call when undefined). */
  function rejectCalls(proc: ChildProcess | undefined, errorFor: (id: number) => Error): void {
    for (const [id, call] of pending) {
      if (proc && call.child !== proc) continue;
      pending.delete(id);
      call.reject(errorFor(id));
    }
    observer.inFlight(pending.size);
  }

  function ready(): Promise<void> {
    return up ? Promise.resolve() : new Promise((resolve) => readyWaiters.push(resolve));
  }

  start();
  let startupTimer: NodeJS.Timeout | undefined;
  await Promise.race([ready(), new Promise<void>((resolve) => (startupTimer = setTimeout(resolve, STARTUP_TIMEOUT_MS)))]);
  clearTimeout(startupTimer);
  if (!up) logger.warn('plugin runtime not ready yet; plugin calls answer 503 until it is');

  return {
    get pid() {
      return up ? child?.pid : undefined;
    },
    call(pluginId, input) {
      const proc = child;
      if (!up || !proc || !proc.connected) return Promise.reject(unavailable('the plugin runtime is restarting; retry'));
      const id = ++nextId;
      return new Promise<PluginCallResult>((resolve, reject) => {
        pending.set(id, { child: proc, plugin: pluginId, resolve, reject });
        observer.inFlight(pending.size);
        sendBatched(proc, { t: 'call', id, plugin: pluginId, method: input.method, requestId: input.requestId, input: JSON.stringify(input) });
      });
    },
    plugins: () => registry,
    configure(plugins) {
      entries = plugins;
      const proc = child;
      if (!up || !proc?.connected) return Promise.resolve();
      // The runtime answers a 'configure' with its settled registry; a runtime that does not within 5 s gets the entries at its next start anyway.
      const reported = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5_000);
        registryWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      send(proc, { t: 'configure', plugins: entries.map((p) => ({ ...p })) });
      return reported;
    },
    ready,
    hostCallsInFlight: () => [...sessions].reduce((n, x) => n + x.running, 0),
    serving: () => up && child !== undefined && Date.now() - health.at < HEALTH_STALE_MS && health.responsive > 0,
    async close(drained) {
      closing = true;
      clearTimeout(restartTimer);
      clearTimeout(standbyTimer);
      standby?.kill('SIGKILL');
      await drained?.catch(() => {});
      // A call still running here outlived the grace period (its request is gone): say so, not "worker terminated".
      rejectCalls(undefined, () => unavailable('the service is shutting down; the call did not finish within the grace period'));
      const proc = child;
      if (!proc) return;
      await new Promise<void>((resolve) => {
        // 'exit', not 'close': a grandchild (esbuild's service) may still hold an inherited pipe open.
        const done = () => {
          clearTimeout(kill);
          clearTimeout(giveUp);
          resolve();
        };
        const kill = setTimeout(() => proc.kill('SIGKILL'), 3000);
        const giveUp = setTimeout(done, 5000);
        if (proc.exitCode !== null || proc.signalCode !== null) return done();
        proc.once('exit', done);
        send(proc, { t: 'shutdown' });
        if (!proc.connected) proc.kill('SIGKILL');
      });
    },
  };
}
