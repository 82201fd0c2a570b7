// Room: runtime/process (the runtime process's main thread; see README.md here). Trusts nothing a worker sends back.
// Entry of the runtime process (forked by src/plugin-host/runtime-process.ts with --no-node-snapshot, supervised by
// src/plugin-host/supervision.ts): owns the plugin registry, the fair scheduler and the sandbox pool with its
// watchdog, relays host calls between workers and the HTTP process. Never imports src/.
import { BroadcastChannel } from 'node:worker_threads';
import { createLoader, type Loader } from './loader.ts';
import { createPool, type SandboxPool } from './pool.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';
import { createWatchdog } from './watchdog.ts';
import { createPriorities } from './priorities.ts';
import { createBatcher } from '../common/batcher.ts';
import { poolTaskChannel, runtimeCallChannel, type RuntimeCallContext } from '../common/diagnostics.ts';
import { runtimeError } from '../common/errors.ts';
import { createHeapRelease } from '../common/heap-release.ts';
import {
  HOST_CHANNEL,
  RELEASE_CHANNEL,
  REPLY_CHANNEL,
  type ChildMessage,
  type ErrorData,
  type LogEntry,
  type ParentMessage,
  type RuntimeOptions,
  type WorkerHostReply,
  type WorkerHostRequest,
  type WorkerRelease,
  type CallTask,
} from '../protocol.ts';

const send = createBatcher<ChildMessage>((msg) => {
  if (process.connected) process.send!(msg);
});

function log(level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void {
  send({ t: 'log', level, msg, data });
}

let pool: SandboxPool | undefined;
let loader: Loader | undefined;
let scheduler: Scheduler | undefined;
let watchdog: ReturnType<typeof createWatchdog> | undefined;
let nextHostCall = 0;
/** Host calls relayed to the HTTP process: our id → the worker and its own request id, and back. */
const relayed = new Map<number, { worker: number; id: number }>();
const relayedBy = new Map<string, number>();
const replyChannels = new Map<number, BroadcastChannel>();
const fromWorkers = new BroadcastChannel(HOST_CHANNEL);
const priorities = createPriorities();

function toWorker(worker: number, reply: WorkerHostReply): void {
  let channel = replyChannels.get(worker);
  if (!channel) {
    channel = new BroadcastChannel(REPLY_CHANNEL + worker);
    channel.unref();
    replyChannels.set(worker, channel);
  }
  channel.postMessage(reply);
}

fromWorkers.onmessage = (event) => {
  const msg = (event as unknown as { data: WorkerHostRequest }).data;
  switch (msg.t) {
    case 'code':
      toWorker(msg.worker, {
        id: msg.id,
        reply: loader?.code(msg.hash) ?? '(function () { throw new Error("plugin code is no longer available"); })',
      });
      return;
    case 'pong':
      watchdog?.pong(msg.worker);
      if (msg.tid) priorities.eventLoop(msg.tid);
      return;
    case 'cancel':
      for (const workerRequest of msg.ids) {
        const key = `${msg.worker}:${workerRequest}`;
        const id = relayedBy.get(key);
        if (id === undefined) continue;
        relayedBy.delete(key);
        relayed.delete(id);
        send({ t: 'host-cancel', id });
      }
      return;
    case 'host': {
      const id = ++nextHostCall;
      relayed.set(id, { worker: msg.worker, id: msg.id });
      relayedBy.set(`${msg.worker}:${msg.id}`, id);
      send({ t: 'host-call', id, plugin: msg.plugin, op: msg.op, args: msg.args, deadline: msg.deadline });
    }
  }
};

// ── Memory after a load ───────────────────────────────────────────────────────
// Under load every V8 heap of the process grows (measured with bench/plugin-path.ts's wrk runs: the main thread
// 18 → 23 MiB, each worker 16 → 25 MiB, each worker's echo isolate 2 → 7.5 MiB with 8 warm contexts) and V8 keeps
// those pages while the process idles: the runtime stayed ~75-100 MiB above its idle RSS. Once no call has completed
// for IDLE_RELEASE_MS after some did, each thread gives back what the load left: a memory-reducing collection where
// the heap grew, and each worker disposes the idle isolates that a burst grew (runtime/worker/worker.ts). It runs
// once per idle spell; under load the check is one counter read a second.

/** No call completed for this long (after some did): the load is over. */
const IDLE_RELEASE_MS = 3000;
const IDLE_CHECK_MS = 1000;
const IDLE_LOG = 'idle: memory given back';

const releaseChannel = new BroadcastChannel(RELEASE_CHANNEL);
releaseChannel.unref();
releaseChannel.onmessage = (event) => {
  const msg = (event as unknown as { data: WorkerRelease }).data;
  if (msg?.t !== 'released') return;
  // Said by a worker: only numbers go on into the log.
  log('debug', IDLE_LOG, {
    thread: `worker ${Number(msg.worker)}`,
    heapBefore: Number(msg.heapBefore),
    heapAfter: Number(msg.heapAfter),
    isolates: Number(msg.isolates),
  });
};

/** Watches the pool's completed count; after a quiet IDLE_RELEASE_MS, the release above, once per idle spell. */
function watchIdle(p: SandboxPool): void {
  let seen = -1;
  let quietSince = 0;
  // The start's own garbage (bundling, inspections, the workers' boot) goes at the first idle spell too.
  let due = true;
  const releaseHeap = createHeapRelease();
  setInterval(() => {
    const completed = p.completed();
    const now = Date.now();
    if (completed !== seen) {
      seen = completed;
      quietSince = now;
      due = true;
      return;
    }
    if (!due || now - quietSince < IDLE_RELEASE_MS) return;
    due = false;
    releaseChannel.postMessage({ t: 'release' } satisfies WorkerRelease);
    void releaseHeap().then(({ heapBefore, heapAfter }) => {
      if (heapAfter !== heapBefore) log('debug', IDLE_LOG, { thread: 'main', heapBefore, heapAfter, isolates: 0 });
    });
  }, IDLE_CHECK_MS).unref();
}

/** Boots the pool (a standby does it ahead of time, so that its workers are up when it is promoted). */
function prepare(options: RuntimeOptions): SandboxPool {
  if (!pool) {
    pool = createPool(options);
    watchIdle(pool);
  }
  scheduler ??= createScheduler({ capacity: options.threads * options.concurrency, maxQueue: options.maxQueue });
  return pool;
}

function start(options: RuntimeOptions): void {
  const p = prepare(options);
  watchdog = createWatchdog({
    workers: () => p.threads(),
    ping: (worker, seq) => toWorker(worker, { ping: seq }),
    stalled: (worker) => {
      log('error', 'a plugin worker stopped answering; replacing it', { worker });
      send({ t: 'worker-stalled' });
    },
    health: (workers, responsive) => {
      send({ t: 'health', workers, responsive });
      priorities.scan();
    },
    exit: () => {
      log('error', 'a stalled plugin worker could not be terminated; restarting the runtime');
      setTimeout(() => process.exit(70), 50);
    },
  });
  const l = createLoader({
    pluginsDir: options.pluginsDir,
    configured: options.plugins,
    defaults: options.defaults,
    quarantine: options.quarantine,
    cache: options.cache,
    inspect: (task) => p.inspect(task),
    onChange: (plugins) => send({ t: 'plugins', plugins }),
    onCache: (plugins) => send({ t: 'cache', plugins }),
    log,
    serviceEnv: options.serviceEnv ?? {},
  });
  loader = l;
  l.start().then(
    () => send({ t: 'ready', plugins: l.list() }),
    (err: unknown) => {
      log('error', `runtime failed to start: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}

/** forward_logs: each console line of the call in the service log, levels mapped as the reference maps them. */
function forwardLogs(plugin: string, requestId: string, lines: LogEntry[]): void {
  for (const line of lines) {
    const level =
      line.level === 'error' ? 'error' : line.level === 'warn' ? 'warn' : line.level === 'debug' ? 'debug' : 'info';
    log(level, line.message, { plugin, requestId, source: 'plugin' });
  }
}

type CallMessage = Extract<ParentMessage, { t: 'call' }>;
type Answer = (result: Extract<ChildMessage, { t: 'result' }>) => void;

const fail = (id: number, error: ErrorData, answer: Answer = send) => answer({ t: 'result', id, ok: false, error });

/** A call traced for a subscriber (runtimeCallChannel): its result sent, then its end published. */
function traced(msg: CallMessage): void {
  const trace: RuntimeCallContext = { id: msg.id, plugin: msg.plugin, requestId: msg.requestId };
  runtimeCallChannel.start.publish(trace);
  call(
    msg,
    (result) => {
      send(result);
      runtimeCallChannel.asyncEnd.publish(trace);
    },
    trace,
  );
}

/** Sends the call's result through `answer` (`send`, or traced's). `trace`: only while someone subscribes. */
function call(msg: CallMessage, answer: Answer = send, trace?: RuntimeCallContext): void {
  const receivedAt = Date.now();
  const plugin = loader?.get(msg.plugin);
  if (!plugin || !pool || !scheduler) return fail(msg.id, runtimeError('notFound', { id: msg.plugin }), answer);
  const s = plugin.settings;
  if (msg.method === 'GET' && !s.allow_get_invocation) return fail(msg.id, runtimeError('getNotAllowed'), answer);
  if (plugin.state === 'error' || !plugin.hash) return fail(msg.id, plugin.error!, answer);
  const timeoutMs = Math.max(1, Math.round(s.timeout * 1000));
  const p = pool;
  const hash = plugin.hash;
  const admission = scheduler.submit(
    plugin.id,
    { maxConcurrent: s.max_concurrent_calls, maxQueued: s.max_queued_calls },
    {
      deadline: receivedAt + timeoutMs,
      expire: () =>
        fail(
          msg.id,
          runtimeError(
            'timeoutQueued',
            { timeout: s.timeout, running: s.max_concurrent_calls },
            { timeout: s.timeout, queued: true },
          ),
          answer,
        ),
      run: async () => {
        const task: CallTask = {
          kind: 'call',
          callId: msg.id,
          plugin: plugin.id,
          hash,
          input: msg.input,
          config: plugin.configJson,
          requestId: msg.requestId,
          // The deadline counts from arrival: time spent waiting for a slot is part of the call's timeout.
          timeoutMs: Math.max(1, receivedAt + timeoutMs - Date.now()),
          memoryMb: s.memory_mb,
          // forward_logs needs the lines even when the client does not get them.
          emitLogs: s.emit_logs || s.forward_logs,
          emitTraces: s.emit_traces,
          allowedOrigins: s.allowed_origins,
          // Made once per load (runtime/process/plugin-env.ts): what of the service's environment this plugin receives.
          env: plugin.envJson ?? '{}',
        };
        const result = await (trace ? poolTaskChannel.tracePromise(p.call, trace, p, task) : p.call(task));
        if (s.forward_logs && result.logs) forwardLogs(plugin.id, msg.requestId, result.logs);
        const logs = s.emit_logs ? result.logs : undefined;
        if (result.ok)
          answer({
            t: 'result',
            id: msg.id,
            ok: true,
            result: result.result,
            raw: s.raw_response,
            logs,
            traces: result.traces,
          });
        else answer({ t: 'result', id: msg.id, ok: false, error: result.error, logs, traces: result.traces });
      },
    },
  );
  if (admission === 'plugin-busy') {
    fail(
      msg.id,
      runtimeError('pluginBusy', { id: plugin.id, running: s.max_concurrent_calls, queued: s.max_queued_calls }),
      answer,
    );
  } else if (admission === 'runtime-busy') {
    fail(msg.id, runtimeError('runtimeBusy'), answer);
  }
}

function onMessage(msg: ParentMessage): void {
  switch (msg.t) {
    case 'batch':
      for (const m of msg.msgs) onMessage(m);
      break;
    case 'call':
      try {
        // Traced only for a subscriber (bench/hop-probe.ts): otherwise no context is made.
        if (runtimeCallChannel.hasSubscribers) traced(msg);
        else call(msg);
      } catch (err) {
        fail(msg.id, runtimeError('runtimeError', { reason: (err as Error).message }));
      }
      break;
    case 'host-reply': {
      const target = relayed.get(msg.id);
      if (target) {
        relayed.delete(msg.id);
        relayedBy.delete(`${target.worker}:${target.id}`);
        toWorker(target.worker, { id: target.id, reply: msg.reply });
      }
      break;
    }
    case 'prepare':
      prepare(msg.options);
      break;
    case 'init':
      start(msg.options);
      break;
    case 'configure':
      loader?.reconfigure(msg.plugins);
      break;
    case 'shutdown':
      shutdown();
      break;
  }
}

process.on('message', onMessage);

function shutdown(): void {
  loader?.close();
  watchdog?.close();
  const done = () => process.exit(0);
  (pool ? pool.close() : Promise.resolve()).then(done, done);
  setTimeout(done, 2000).unref();
}

// The HTTP process is our only reason to live.
process.on('disconnect', shutdown);

// Ctrl-C, `kill -TERM -<pgid>` and systemd's KillMode=control-group signal every process of the group at once: the
// HTTP process owns the shutdown and sends 'shutdown' once the calls in flight are done (or it disappears).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {});
