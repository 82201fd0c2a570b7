// The only door from src/ into runtime/: forks and supervises the runtime process, speaks runtime/protocol.ts,
// and serves the sandbox's calls back into the relayer API and the KV store.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './store/db.ts';
import type { RelayerOperations, TransactionRecord } from './domain/types.ts';
import { FINAL_STATUSES } from './domain/types.ts';
import { AppError, PluginError, ValidationError } from './errors.ts';
import { createKvRepo, KV_MAX_VALUE_BYTES, type KvRepo } from './store/kv-repo.ts';
import {
  OOM_FD,
  RUNTIME_PROCESS,
  createBatcher,
  type CallInput,
  type ChildMessage,
  type ErrorData,
  type LogEntry,
  type OomReport,
  type ParentMessage,
  type PluginInfo,
  type RuntimeOptions,
  type TraceEntry,
} from '../runtime/protocol.ts';

export type { CallInput, LogEntry, PluginInfo, PluginSettings, TraceEntry } from '../runtime/protocol.ts';

const SERVER_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'runtime', 'server.ts');
const STARTUP_TIMEOUT_MS = 20_000;
const RETRY_AFTER_SECONDS = 1;

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

function toPluginFailure(pluginId: string, error: ErrorData, logs?: LogEntry[], traces?: TraceEntry[]): Error {
  switch (error.code) {
    case 'PLUGIN_NOT_FOUND':
      return new AppError('PLUGIN_NOT_FOUND', { params: { id: pluginId } });
    case 'METHOD_NOT_ALLOWED':
      return new AppError('METHOD_NOT_ALLOWED', { reason: error.message });
    case 'RUNTIME_BUSY':
    case 'RUNTIME_UNAVAILABLE':
      return new AppError('RUNTIME_UNAVAILABLE', { reason: error.message, headers: { 'Retry-After': String(error.retryAfter ?? RETRY_AFTER_SECONDS) } });
  }
  return new PluginError({
    code: error.code,
    message: error.message,
    status: error.status >= 400 && error.status <= 599 ? error.status : 500,
    details: error.details ?? {},
    logs,
    traces,
    headers: error.retryAfter ? { 'Retry-After': String(error.retryAfter) } : undefined,
  });
}

/** What the sandbox sees when a host call fails: the same code/status/reason the HTTP API would give. */
function toErrorData(err: unknown, logger: Logger): ErrorData {
  if (err instanceof AppError) return { code: err.code, message: err.reason, status: err.status, details: err.details ?? {} };
  logger.error({ err }, 'plugin host call failed');
  return { code: 'INTERNAL', message: 'Internal Server Error', status: 500, details: {} };
}

function str(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new ValidationError(`${name} must be a non-empty string`);
  return value;
}

/** Executes one host call from the sandbox; returns the JSON text of its value. */
async function dispatch(msg: HostCall, relayers: RelayerOperations, kv: KvRepo): Promise<string> {
  const args = JSON.parse(msg.args) as Record<string, any>;
  const p = (args.payload ?? {}) as Record<string, any>;
  const plugin = msg.plugin;
  switch (msg.op) {
    case 'relayer.getRelayer':
      return JSON.stringify(await relayers.getRelayer(str(args.relayerId, 'relayerId')));
    case 'relayer.sendTransaction':
      return JSON.stringify(await relayers.sendTransaction(str(args.relayerId, 'relayerId'), args.payload));
    case 'relayer.getTransaction':
      return JSON.stringify(await relayers.getTransaction(str(args.relayerId, 'relayerId'), str(p.transactionId, 'transactionId')));
    case 'relayer.listTransactions':
      return JSON.stringify(await relayers.listTransactions(str(args.relayerId, 'relayerId'), p));
    case 'relayer.replaceTransaction':
      return JSON.stringify(await relayers.replaceTransaction(str(args.relayerId, 'relayerId'), str(p.transactionId, 'transactionId'), p.request));
    case 'relayer.cancelTransaction':
      return JSON.stringify(await relayers.cancelTransaction(str(args.relayerId, 'relayerId'), str(p.transactionId, 'transactionId')));
    case 'relayer.waitTransaction':
      return JSON.stringify(await waitForFinal(relayers, str(args.relayerId, 'relayerId'), str(p.transactionId, 'transactionId'), p, msg.deadline));
    case 'kv.get':
      return kv.get(plugin, args.key) ?? 'null';
    case 'kv.set':
      kv.set(plugin, args.key, JSON.stringify(args.value ?? null), args.ttlSec ?? undefined);
      return 'true';
    case 'kv.del':
      return String(kv.del(plugin, args.key));
    case 'kv.exists':
      return String(kv.exists(plugin, args.key));
    case 'kv.listKeys':
      return JSON.stringify(kv.listKeys(plugin, args.pattern));
    case 'kv.clear':
      return String(kv.clear(plugin));
    case 'kv.lock':
      return JSON.stringify(kv.lock(plugin, args.key, args.ttlSec));
    case 'kv.unlock':
      return String(kv.unlock(plugin, args.key, args.token));
  }
  throw new ValidationError(`unknown host operation '${String(msg.op)}'`);
}

/** `api.transactionWait`: polls the record until a final status, bounded by the caller's deadline. */
async function waitForFinal(relayers: RelayerOperations, relayerId: string, transactionId: string, opts: Record<string, unknown>, deadline: number): Promise<TransactionRecord> {
  const interval = typeof opts.interval === 'number' && opts.interval >= 50 ? opts.interval : 1000;
  const timeout = typeof opts.timeout === 'number' && opts.timeout > 0 ? opts.timeout : 300_000;
  const until = Math.min(Date.now() + timeout, deadline);
  for (;;) {
    const tx = await relayers.getTransaction(relayerId, transactionId);
    if (FINAL_STATUSES.has(tx.status)) return tx;
    if (Date.now() + interval > until) {
      throw new AppError('INTERNAL', { reason: `transaction ${transactionId} did not reach a final status in time (last status: ${tx.status})` });
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** What the supervisor reports as it goes (metrics); plain callbacks, so this file needs no metrics library. */
export interface RuntimeObserver {
  restarted(): void;
  /** Calls handed to the runtime and not answered yet (queued or running there). */
  inFlight(count: number): void;
}

export async function createRuntimeClient(deps: {
  config: Config;
  logger: Logger;
  host: { relayers: RelayerOperations; db: Db };
  observer?: RuntimeObserver;
}): Promise<RuntimeClient> {
  const { config, host } = deps;
  const observer = deps.observer ?? { restarted() {}, inFlight() {} };
  const logger = deps.logger.child({ component: 'plugin-runtime' });
  const kv = createKvRepo(host.db);
  const pending = new Map<number, Pending>();
  const quarantine: Record<string, string> = {};
  let registry: PluginInfo[] = [];
  let child: ChildProcess | undefined;
  let up = false;
  let closing = false;
  let nextId = 0;
  let failures = 0;
  let readyAt = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let readyWaiters: Array<() => void> = [];

  const options = (): RuntimeOptions => ({
    pluginsDir: config.pluginsDir,
    plugins: config.file.plugins.map((p) => ({ ...p })),
    contextMode: config.pluginRuntime.contextMode,
    threads: config.pluginRuntime.threads,
    concurrency: config.pluginRuntime.concurrency,
    maxQueue: config.pluginRuntime.maxQueue,
    limits: { maxResultBytes: 1024 * 1024, maxLogLines: 200, maxLogBytes: 64 * 1024, maxLogLineBytes: 4096, maxApiCalls: 100, maxKvValueBytes: KV_MAX_VALUE_BYTES },
    quarantine,
  });

  function send(target: ChildProcess, msg: ParentMessage): void {
    if (target.connected) target.send(msg);
  }
  /** Batched sends to the current child (calls, host replies): one IPC write per event-loop turn. */
  let batched: { child: ChildProcess; send: (msg: ParentMessage) => void } | undefined;
  function sendBatched(target: ChildProcess, msg: ParentMessage): void {
    if (batched?.child !== target) batched = { child: target, send: createBatcher<ParentMessage>((m) => send(target, m)) };
    batched.send(msg);
  }

  function onHostCall(from: ChildProcess, msg: HostCall): void {
    dispatch(msg, host.relayers, kv).then(
      (value) => sendBatched(from, { t: 'host-reply', id: msg.id, reply: `{"ok":true,"value":${value}}` }),
      (err: unknown) => sendBatched(from, { t: 'host-reply', id: msg.id, reply: JSON.stringify({ ok: false, error: toErrorData(err, logger) }) }),
    );
  }

  function onMessage(from: ChildProcess, msg: ChildMessage): void {
    switch (msg.t) {
      case 'batch':
        for (const m of msg.msgs) onMessage(from, m);
        return;
      case 'result': {
        const call = pending.get(msg.id);
        if (!call) return;
        pending.delete(msg.id);
        observer.inFlight(pending.size);
        if (msg.ok) {
          const metadata = msg.logs || msg.traces ? { ...(msg.logs ? { logs: msg.logs } : {}), ...(msg.traces ? { traces: msg.traces } : {}) } : undefined;
          call.resolve({ result: msg.result, raw: msg.raw, metadata });
        } else {
          call.reject(toPluginFailure(call.plugin, msg.error, msg.logs, msg.traces));
        }
        return;
      }
      case 'host-call':
        onHostCall(from, msg);
        return;
      case 'plugins':
        registry = msg.plugins;
        return;
      case 'ready':
        registry = msg.plugins;
        up = true;
        readyAt = Date.now();
        logger.info({ pid: from.pid, plugins: registry.length, mode: config.pluginRuntime.contextMode }, 'plugin runtime ready');
        for (const w of readyWaiters) w();
        readyWaiters = [];
        return;
      case 'log':
        logger[msg.level]({ ...msg.data }, msg.msg);
        return;
    }
  }

  function start(): void {
    const oomCalls = new Set<number>();
    const proc = fork(SERVER_PATH, [], {
      execArgv: [...RUNTIME_PROCESS.execArgv],
      serialization: 'advanced',
      // fd 4: OOM reports, written synchronously by a worker right before the process ends.
      stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
      // Plugins cannot read the environment anyway; the runtime itself needs none of our secrets either.
      env: { ...RUNTIME_PROCESS.env, PATH: process.env.PATH ?? '', TMPDIR: process.env.TMPDIR ?? '/tmp', NODE_ENV: process.env.NODE_ENV ?? '' },
    });
    child = proc;
    const oomStream = proc.stdio[OOM_FD] as Readable | null;
    if (oomStream) {
      createInterface({ input: oomStream }).on('line', (line) => {
        try {
          const report = JSON.parse(line) as OomReport;
          for (const id of report.calls) oomCalls.add(id);
          if (report.inspect) quarantine[report.plugin] = report.hash;
          logger.error({ plugin: report.plugin, calls: report.calls.length }, 'plugin exhausted sandbox memory: the runtime process is restarting');
        } catch {
          // not a report
        }
      });
    }
    proc.on('message', (msg: ChildMessage) => onMessage(proc, msg));
    proc.on('error', (err) => logger.error({ err }, 'plugin runtime process error'));
    // 'close' comes after 'exit' and after fd 4 is drained, so OOM reports are already read; a grandchild
    // holding the inherited pipe could delay it, hence the fallback shortly after 'exit'.
    let gone = false;
    proc.on('exit', (code, signal) => setTimeout(() => onGone(code, signal), 500).unref());
    proc.on('close', (code, signal) => onGone(code, signal));
    const onGone = (code: number | null, signal: NodeJS.Signals | null) => {
      if (gone) return;
      gone = true;
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
    send(proc, { t: 'init', options: options() });
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
    ready,
    async close(drained) {
      closing = true;
      clearTimeout(restartTimer);
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
