// Entry of the runtime process (forked by src/runtime-client.ts with --no-node-snapshot): owns the plugin
// registry and the sandbox pool, relays host calls between workers and the HTTP process. Never imports src/.
import { BroadcastChannel } from 'node:worker_threads';
import { createLoader, type Loader } from './loader.ts';
import { createPool, type SandboxPool } from './pool.ts';
import {
  HOST_CHANNEL,
  replyChannel,
  createBatcher,
  type ChildMessage,
  type ParentMessage,
  type RuntimeOptions,
  type WorkerHostReply,
  type WorkerHostRequest,
} from './protocol.ts';

const send = createBatcher<ChildMessage>((msg) => {
  if (process.connected) process.send!(msg);
});

function log(level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void {
  send({ t: 'log', level, msg, data });
}

let pool: SandboxPool | undefined;
let loader: Loader | undefined;
let nextHostCall = 0;
/** Host calls relayed to the HTTP process: our id → the worker and its own request id. */
const relayed = new Map<number, { worker: number; id: number }>();
const replyChannels = new Map<number, BroadcastChannel>();
const fromWorkers = new BroadcastChannel(HOST_CHANNEL);

function replyTo(worker: number, reply: WorkerHostReply): void {
  let channel = replyChannels.get(worker);
  if (!channel) {
    channel = new BroadcastChannel(replyChannel(worker));
    channel.unref();
    replyChannels.set(worker, channel);
  }
  channel.postMessage(reply);
}

fromWorkers.onmessage = (event) => {
  const msg = (event as unknown as { data: WorkerHostRequest }).data;
  if (msg.t === 'code') {
    replyTo(msg.worker, { id: msg.id, reply: loader?.code(msg.hash) ?? '(function () { throw new Error("plugin code is no longer available"); })' });
    return;
  }
  const id = ++nextHostCall;
  relayed.set(id, { worker: msg.worker, id: msg.id });
  send({ t: 'host-call', id, plugin: msg.plugin, op: msg.op, args: msg.args, deadline: msg.deadline });
};

function start(options: RuntimeOptions): void {
  const p = createPool(options);
  pool = p;
  const l = createLoader({
    pluginsDir: options.pluginsDir,
    configured: options.plugins,
    quarantine: options.quarantine,
    inspect: (task) => p.inspect(task),
    onChange: (plugins) => send({ t: 'plugins', plugins }),
    log,
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

async function call(msg: Extract<ParentMessage, { t: 'call' }>): Promise<void> {
  const plugin = loader?.get(msg.plugin);
  if (!plugin || !pool) {
    send({ t: 'result', id: msg.id, ok: false, error: { code: 'PLUGIN_NOT_FOUND', message: `Plugin with ID ${msg.plugin} not found`, status: 404 } });
    return;
  }
  const s = plugin.settings;
  if (msg.method === 'GET' && !s.allow_get_invocation) {
    send({ t: 'result', id: msg.id, ok: false, error: { code: 'METHOD_NOT_ALLOWED', message: 'GET invocation is not allowed for this plugin', status: 405 } });
    return;
  }
  if (plugin.state === 'error' || !plugin.hash) {
    send({ t: 'result', id: msg.id, ok: false, error: plugin.error! });
    return;
  }
  const result = await pool.call({
    kind: 'call',
    callId: msg.id,
    plugin: plugin.id,
    hash: plugin.hash,
    input: msg.input,
    config: plugin.configJson,
    requestId: msg.requestId,
    timeoutMs: Math.max(1, Math.round(s.timeout * 1000)),
    memoryMb: s.memory_mb,
    emitLogs: s.emit_logs,
    emitTraces: s.emit_traces,
  });
  if (result.ok) send({ t: 'result', id: msg.id, ok: true, result: result.result, raw: s.raw_response, logs: result.logs, traces: result.traces });
  else send({ t: 'result', id: msg.id, ok: false, error: result.error, logs: result.logs, traces: result.traces });
}

function onMessage(msg: ParentMessage): void {
  switch (msg.t) {
    case 'batch':
      for (const m of msg.msgs) onMessage(m);
      break;
    case 'call':
      call(msg).catch((err: unknown) => {
        send({ t: 'result', id: msg.id, ok: false, error: { code: 'INTERNAL', message: `runtime error: ${(err as Error).message}`, status: 500 } });
      });
      break;
    case 'host-reply': {
      const target = relayed.get(msg.id);
      if (target) {
        relayed.delete(msg.id);
        replyTo(target.worker, { id: target.id, reply: msg.reply });
      }
      break;
    }
    case 'init':
      start(msg.options);
      break;
    case 'shutdown':
      shutdown();
      break;
  }
}

process.on('message', onMessage);

function shutdown(): void {
  loader?.close();
  const done = () => process.exit(0);
  (pool ? pool.close() : Promise.resolve()).then(done, done);
  setTimeout(done, 2000).unref();
}

// The HTTP process is our only reason to live.
process.on('disconnect', shutdown);

// Ctrl-C, `kill -TERM -<pgid>` and systemd's KillMode=control-group signal every process of the group at once: the
// HTTP process owns the shutdown and sends 'shutdown' once the calls in flight are done (or it disappears).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => {});
