// Piscina worker: runs plugin calls and inspections in isolated-vm, enforcing the wall-clock deadline and limits.
// Warm mode keeps a small pool of loaded contexts per plugin; fresh mode makes one context per call and
// recycles the isolate only once no call is running in it.
import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import {
  HOST_CHANNEL,
  replyChannel,
  type CallTask,
  type ErrorData,
  type HostOp,
  type InspectResult,
  type InspectTask,
  type LogEntry,
  type WorkerData,
  type WorkerHostReply,
  type WorkerHostRequest,
  type WorkerResult,
  type WorkerTask,
} from './protocol.ts';
import { createGeneration, createSlot, disposeGeneration, LoadError, releaseSlot, runInSlot, type ActiveCall, type Generation, type Slot } from './sandbox.ts';

const data = workerData as WorkerData;
const { limits } = data;
/** Fresh mode: contexts made in one isolate before it is retired (released contexts are collected late). */
const FRESH_CONTEXTS_PER_ISOLATE = 100;
/** Plugins kept warm per worker; the least recently used idle one is disposed beyond this. */
const MAX_GENERATIONS = 64;
const MAX_CODE_CACHE = 128;
/** A loaded warm isolate's heap is ~2 MiB (measured); after a failed call, more than this is garbage worth dropping. */
const RETIRE_AFTER_FAILURE_HEAP_BYTES = 8 * 1024 * 1024;

const generations = new Map<string, Generation>();
const codeCache = new Map<string, string>();

// ── host bridge: worker → runtime main thread (→ HTTP process) ───────────────
const toMain = new BroadcastChannel(HOST_CHANNEL);
const fromMain = new BroadcastChannel(replyChannel(threadId));
const waiting = new Map<number, (reply: string) => void>();
let nextRequest = 0;
fromMain.onmessage = (event) => {
  const { id, reply } = (event as unknown as { data: WorkerHostReply }).data;
  const resolve = waiting.get(id);
  if (resolve) {
    waiting.delete(id);
    resolve(reply);
  }
};
toMain.unref();
fromMain.unref();

type Request = WorkerHostRequest extends infer R ? (R extends WorkerHostRequest ? Omit<R, 'worker' | 'id'> : never) : never;

function ask(msg: Request): Promise<string> {
  const id = ++nextRequest;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    toMain.postMessage({ ...msg, worker: threadId, id } as WorkerHostRequest);
  });
}

function errorReply(code: string, message: string, status: number): string {
  return JSON.stringify({ ok: false, error: { code, message, status, details: {} } });
}

async function bridge(slot: Slot, op: string, argsJson: string): Promise<string> {
  const call = slot.call;
  if (!call) return errorReply('CALL_ENDED', 'the plugin call this request belongs to has already finished', 409);
  if (++call.apiCalls > limits.maxApiCalls) {
    return errorReply('API_CALL_LIMIT', `a plugin call may make at most ${limits.maxApiCalls} api/kv calls`, 429);
  }
  if (call.emitTraces && op.startsWith('relayer.')) {
    const args = JSON.parse(argsJson) as { relayerId?: unknown; payload?: unknown };
    call.traces.push({ method: op.slice('relayer.'.length), relayerId: String(args.relayerId), requestId: call.requestId, payload: args.payload ?? null });
  }
  return ask({ t: 'host', plugin: call.plugin, op: op as HostOp, args: argsJson, deadline: call.deadline });
}

async function codeFor(hash: string): Promise<string> {
  let code = codeCache.get(hash);
  if (code === undefined) {
    code = await ask({ t: 'code', hash });
    if (codeCache.size >= MAX_CODE_CACHE) codeCache.delete(codeCache.keys().next().value as string);
    codeCache.set(hash, code);
  }
  return code;
}

// ── generations ──────────────────────────────────────────────────────────────
function retire(gen: Generation): void {
  gen.retired = true;
  if (generations.get(gen.plugin) === gen) generations.delete(gen.plugin);
  if (gen.inFlight.size === 0) disposeGeneration(gen, 'RETIRED');
}

function generationFor(task: CallTask, code: string): Generation {
  const current = generations.get(task.plugin);
  if (current && current.hash === task.hash && !current.retired && !current.dead) return current;
  if (current) retire(current);
  if (generations.size >= MAX_GENERATIONS) {
    let lru: Generation | undefined;
    for (const g of generations.values()) if (g.inFlight.size === 0 && (!lru || g.lastUsed < lru.lastUsed)) lru = g;
    if (lru) retire(lru);
  }
  const gen = createGeneration(task.plugin, task.hash, code, task.memoryMb);
  generations.set(task.plugin, gen);
  return gen;
}

function failure(code: string, message: string, status: number, extra: Partial<ErrorData> = {}): WorkerResult {
  return { ok: false, error: { code, message, status, details: {}, ...extra } };
}

// The prelude enforces the log and error limits inside the isolate, but with intrinsics the plugin can tamper
// with (Array.prototype.push, String.prototype.slice): measured, a plugin pushed 8 MB of logs past them. These
// checks run on the host side, on what actually came out, and cannot be bypassed.
const LOG_LEVELS = new Set(['log', 'info', 'warn', 'error', 'debug']);
const MAX_MESSAGE = 4096;

function boundedLogs(logsJson: string): LogEntry[] {
  // JSON escaping can make a line up to 6x longer than the characters the prelude counted.
  if (logsJson.length > limits.maxLogBytes * 6 + limits.maxLogLines * 64 + 4096) {
    return [{ level: 'warn', message: `[relaybox] logs dropped: the call's log output exceeded ${limits.maxLogBytes} bytes` }];
  }
  const parsed: unknown = JSON.parse(logsJson);
  const entries = Array.isArray(parsed) ? parsed.slice(0, limits.maxLogLines + 1) : [];
  return entries.map((e: { level?: unknown; message?: unknown } | null) => ({
    level: typeof e?.level === 'string' && LOG_LEVELS.has(e.level) ? e.level : 'log',
    message: typeof e?.message === 'string' ? (e.message.length > limits.maxLogLineBytes + 16 ? e.message.slice(0, limits.maxLogLineBytes) + '… [truncated]' : e.message) : '',
  }));
}

function boundedError(json: string): ErrorData {
  if (json.length > limits.maxResultBytes + MAX_MESSAGE * 6 + 1024) {
    return { code: 'PLUGIN_ERROR', message: 'Plugin error report exceeds the size limit', status: 500, details: {} };
  }
  const e = JSON.parse(json) as ErrorData;
  if (typeof e.message !== 'string') e.message = 'Plugin execution failed';
  else if (e.message.length > MAX_MESSAGE + 16) e.message = e.message.slice(0, MAX_MESSAGE) + '… [truncated]';
  return e;
}

function classify(err: unknown, gen: Generation, timedOut: boolean, task: CallTask): WorkerResult {
  const message = (err as Error)?.message ?? String(err);
  const seconds = task.timeoutMs / 1000;
  if (timedOut || /execution timed out/i.test(message)) {
    return failure('TIMEOUT', `Plugin execution timed out after ${seconds} s`, 504, { details: { timeout: seconds } });
  }
  if (gen.dead === 'TIMEOUT') {
    return failure('RUNTIME_UNAVAILABLE', 'the plugin sandbox was restarted after another call timed out; retry', 503, { retryAfter: 1 });
  }
  if (/memory limit|out of memory|disposed/i.test(message)) {
    disposeGeneration(gen, 'MEMORY');
    return failure('MEMORY_LIMIT_EXCEEDED', `Plugin exceeded its memory limit of ${task.memoryMb} MB`, 500, { details: { memory_mb: task.memoryMb } });
  }
  if (err instanceof LoadError) return failure('LOAD_ERROR', `Plugin failed to load: ${message}`, 500);
  return failure('INTERNAL', `Plugin runtime error: ${message}`, 500);
}

async function call(task: CallTask): Promise<WorkerResult> {
  const code = await codeFor(task.hash);
  const gen = generationFor(task, code);
  gen.lastUsed = Date.now();
  gen.inFlight.add(task.callId);
  const active: ActiveCall = {
    callId: task.callId,
    plugin: task.plugin,
    requestId: task.requestId,
    deadline: Date.now() + task.timeoutMs,
    emitTraces: task.emitTraces,
    apiCalls: 0,
    traces: [],
  };
  let timedOut = false;
  // isolated-vm's timeout counts only isolate CPU time; this wall-clock timer also stops code awaiting the host.
  const timer = setTimeout(() => {
    timedOut = true;
    disposeGeneration(gen, 'TIMEOUT');
  }, task.timeoutMs);
  let slot: Slot | undefined;
  let reusable = false;
  try {
    slot = gen.free.pop() ?? (await createSlot(gen, limits, bridge, task.timeoutMs)).slot;
    slot.call = active;
    const [ok, json, logsJson] = await runInSlot(slot, task.input, task.config, task.emitLogs, task.timeoutMs);
    reusable = true;
    const logs = logsJson ? boundedLogs(logsJson) : undefined;
    const traces = task.emitTraces ? active.traces : undefined;
    if (ok && json.length > limits.maxResultBytes) return { ...failure('RESULT_TOO_LARGE', `Plugin result exceeds ${limits.maxResultBytes} bytes`, 500, { details: { limit: limits.maxResultBytes } }), logs, traces };
    if (ok) return { ok: true, result: json, logs, traces };
    // A failed call may leave a heap full of garbage (a 50 MB result or a 10 MB kv value refused, say); V8 keeps
    // those pages. Retire such an isolate rather than keep it warm, so the runtime's memory returns to its baseline.
    if (gen.isolate.getHeapStatisticsSync().total_heap_size > RETIRE_AFTER_FAILURE_HEAP_BYTES) gen.retired = true;
    return { ok: false, error: boundedError(json), logs, traces };
  } catch (err) {
    const result = classify(err, gen, timedOut, task);
    if (task.emitTraces) result.traces = active.traces;
    return result;
  } finally {
    clearTimeout(timer);
    gen.inFlight.delete(task.callId);
    if (slot) {
      slot.call = null;
      if (reusable && data.contextMode === 'warm' && !gen.dead && !gen.retired) gen.free.push(slot);
      else releaseSlot(slot);
    }
    if (data.contextMode === 'fresh' && gen.contexts >= FRESH_CONTEXTS_PER_ISOLATE) gen.retired = true;
    if (gen.retired) retire(gen);
  }
}

/** Evaluates a new bundle once in a throwaway isolate: does it export a handler, and what `settings`? */
async function inspect(task: InspectTask): Promise<InspectResult> {
  const code = await codeFor(task.hash);
  const gen = createGeneration(task.plugin, task.hash, code, task.memoryMb, true);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    disposeGeneration(gen, 'TIMEOUT');
  }, task.timeoutMs);
  try {
    const { slot, info } = await createSlot(gen, limits, async () => errorReply('NOT_IN_CALL', 'no api or kv while loading', 409), task.timeoutMs);
    releaseSlot(slot);
    return { ok: true, hasHandler: info[0], settings: info[1] };
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    if (timedOut || /timed out/i.test(message)) return { ok: false, error: { code: 'LOAD_ERROR', message: `Plugin top-level code did not finish within ${task.timeoutMs} ms`, status: 500 } };
    if (/memory/i.test(message)) return { ok: false, error: { code: 'MEMORY_LIMIT_EXCEEDED', message: 'Plugin exceeded its memory limit while loading', status: 500 } };
    return { ok: false, error: { code: 'LOAD_ERROR', message: `Plugin failed to load: ${message}`, status: 500 } };
  } finally {
    clearTimeout(timer);
    disposeGeneration(gen, 'RETIRED');
  }
}

export default function run(task: WorkerTask): Promise<WorkerResult | InspectResult> {
  return task.kind === 'call' ? call(task) : inspect(task);
}
