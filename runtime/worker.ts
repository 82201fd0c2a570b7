// Piscina worker: runs plugin calls and inspections in isolated-vm. Each call lives in a CallScope (call-scope.ts):
// the host enters the isolate one entry at a time on the call's behalf (run, then deliveries of host replies),
// the call answers once the prelude reported 'done' and no entry is running, and ending the scope cancels all
// its host work. Warm mode keeps loaded contexts per plugin and reuses one only when its call left it idle.
import { workerData } from 'node:worker_threads';
import { createCallScope } from './call-scope.ts';
import { failure, createTraceBook, readLogs, readPluginError, readResult, tooLarge } from './outcome.ts';
import { HOST_OPS, type CallTask, type ErrorData, type HostOp, type InspectResult, type InspectTask, type WorkerData, type WorkerResult, type WorkerTask } from './protocol.ts';
import { createGeneration, createSlot, disposeGeneration, enter, LoadError, ranUnattended, releaseSlot, type Generation, type Slot } from './sandbox.ts';
import { ask, cancelRequests, codeFor } from './worker-bridge.ts';

const data = workerData as WorkerData;
const { limits } = data;
/** Fresh mode: contexts made in one isolate before it is retired (released contexts are collected late). */
const FRESH_CONTEXTS_PER_ISOLATE = 100;
/** Plugins kept warm per worker; the least recently used idle one is disposed beyond this. */
const MAX_GENERATIONS = 64;
/** A loaded warm isolate's heap is ~2 MiB (measured); after a failed call, more than this is garbage worth dropping. */
const RETIRE_AFTER_FAILURE_HEAP_BYTES = 8 * 1024 * 1024;
/** Isolate time spent while the host had no entry in it that counts as code escaping the entry discipline. */
const UNATTENDED_CPU_NS = 50_000_000n;

const generations = new Map<string, Generation>();
let nextSeq = 0;

// Backstops, four times a second: an isolate that runs while no call of ours is in it is disposed, whatever made it
// run; so is a busy isolate whose heap went past its limit (V8 lets a large string or array past it until its next
// collection; an idle isolate is checked as each call ends, see heapNow).
setInterval(() => {
  for (const gen of generations.values()) {
    if (ranUnattended(gen, UNATTENDED_CPU_NS)) {
      generations.delete(gen.plugin);
      disposeGeneration(gen, 'ROGUE');
    } else if (gen.running > 0) {
      gen.isolate.getHeapStatistics().then(
        (h) => {
          if (h.used_heap_size > h.heap_size_limit) disposeGeneration(gen, 'MEMORY');
        },
        () => {},
      );
    }
  }
}, 250).unref();

// ── generations ──────────────────────────────────────────────────────────────
function retire(gen: Generation): void {
  gen.retired = true;
  if (generations.get(gen.plugin) === gen) generations.delete(gen.plugin);
  if (gen.inFlight.size === 0) disposeGeneration(gen, 'RETIRED');
}

function generationFor(task: CallTask, code: string): Generation {
  const current = generations.get(task.plugin);
  if (current && current.hash === task.hash && current.memoryMb === task.memoryMb && !current.retired && !current.dead) return current;
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

function classify(err: unknown, gen: Generation, task: CallTask): WorkerResult {
  const message = (err as Error)?.message ?? String(err);
  const seconds = task.timeoutMs / 1000;
  if (/execution timed out/i.test(message)) return failure('TIMEOUT', `Plugin execution timed out after ${seconds} s`, 504, { details: { timeout: seconds } });
  if (gen.dead === 'TIMEOUT' || gen.dead === 'ROGUE' || gen.dead === 'RETIRED') {
    return failure('RUNTIME_UNAVAILABLE', 'the plugin sandbox was reset while this call was running; retry', 503, { retryAfter: 1 });
  }
  if (/memory limit|out of memory|disposed/i.test(message)) {
    disposeGeneration(gen, 'MEMORY');
    return memoryExceeded(task);
  }
  if (err instanceof LoadError) return failure('LOAD_ERROR', `Plugin failed to load: ${message}`, 500);
  return failure('INTERNAL', `Plugin runtime error: ${message.slice(0, 500)}`, 500);
}

const memoryExceeded = (task: { memoryMb: number }) =>
  failure('MEMORY_LIMIT_EXCEEDED', `Plugin exceeded its memory limit of ${task.memoryMb} MB`, 500, { details: { memory_mb: task.memoryMb } });

interface Done {
  kind: unknown;
  text: unknown;
  logs: unknown;
  reserved: unknown;
}

/** What the prelude reported, read and bounded on this side. */
function verdict(done: Done, task: CallTask, apiCallLimited: boolean): WorkerResult {
  switch (done.kind) {
    case 'ok':
      return readResult(done.text, limits);
    case 'error':
      return { ok: false, error: readPluginError(done.text, limits, apiCallLimited) };
    case 'invalid':
      return failure('INVALID_RESULT', `Plugin result is not JSON-serializable: ${typeof done.text === 'string' ? done.text.slice(0, limits.maxErrorMessageChars) : 'unknown reason'}`, 500);
    case 'too-large':
      return tooLarge(limits);
    case 'memory':
      return memoryExceeded(task);
  }
  return failure('INTERNAL', 'the plugin sandbox reported an unknown outcome', 500);
}

/** The isolate's heap right now, read only while no entry runs in it (the read then cannot wait on plugin code). */
function heapNow(gen: Generation): { used: number; limit: number; held: number } | undefined {
  if (gen.running !== 0 || gen.dead) return undefined;
  try {
    const h = gen.isolate.getHeapStatisticsSync();
    return { used: h.used_heap_size, limit: h.heap_size_limit, held: h.total_heap_size + h.externally_allocated_size };
  } catch {
    return undefined;
  }
}

/**
 * Puts a context back for the next call of this plugin, or lets it go. A call that failed or could not leave its
 * context idle may leave a heap full of garbage (a 50 MB result refused, buffers it reserved); V8 keeps those pages
 * while the isolate sits idle. Such an isolate is retired, so the runtime's memory returns to its baseline.
 */
function afterCall(gen: Generation, slot: Slot, reusable: boolean, failed: boolean, heap: ReturnType<typeof heapNow>): void {
  slot.listener = null;
  if (data.contextMode === 'fresh' && gen.contexts >= FRESH_CONTEXTS_PER_ISOLATE) gen.retired = true;
  if (failed || !reusable) {
    if (heap && heap.held > RETIRE_AFTER_FAILURE_HEAP_BYTES) retire(gen);
    else if (!heap && !gen.dead) {
      // Another call is running in this isolate: ask asynchronously.
      gen.isolate.getHeapStatistics().then(
        (h) => {
          if (h.total_heap_size + h.externally_allocated_size > RETIRE_AFTER_FAILURE_HEAP_BYTES) retire(gen);
        },
        () => {},
      );
    }
  }
  if (reusable && data.contextMode === 'warm' && !gen.dead && !gen.retired) gen.free.push(slot);
  else releaseSlot(slot);
}

/**
 * Adds the trace entry of a relayer call. The arguments are `{"relayerId":…,"payload":…}` as the prelude wrote
 * them; when they are too large for the payload to be kept anyway, they are not parsed at all.
 */
function traceOf(traces: ReturnType<typeof createTraceBook>, op: string, args: string): void {
  const method = op.slice('relayer.'.length);
  if (args.length > limits.maxTraceEntryBytes + 1024) {
    const id = /^\{"relayerId":"((?:[^"\\]|\\.){0,128})"/.exec(args)?.[1];
    traces.add(method, id ?? '', undefined, Buffer.byteLength(args));
    return;
  }
  let parsed: { relayerId?: unknown; payload?: unknown } = {};
  try {
    parsed = JSON.parse(args);
  } catch {
    // the host answers the malformed request
  }
  traces.add(method, parsed?.relayerId, parsed?.payload === undefined ? undefined : JSON.stringify(parsed.payload));
}

/** One call in `gen`: resolves with its answer once nothing it started can run any more. */
function runCall(task: CallTask, gen: Generation): Promise<WorkerResult> {
  return new Promise<WorkerResult>((resolve) => {
    const deadline = Date.now() + task.timeoutMs;
    const remaining = () => Math.max(1, deadline - Date.now());
    const scope = createCallScope();
    const seq = ++nextSeq;
    const traces = task.emitTraces ? createTraceBook(limits, task.requestId) : undefined;
    /** Host replies waiting for the next entry: [request id, reply JSON, …]. */
    let replies: Array<number | string> = [];
    let slot: Slot | undefined;
    let done: Done | undefined;
    let fault: unknown;
    let timedOut = false;
    let answered = false;
    let apiCalls = 0;
    let argBytes = 0;
    let limited = false;

    const timer = setTimeout(() => {
      timedOut = true;
      // Plugin code of this call still running (or queued) in the isolate: only disposal stops it now.
      if (scope.entering > 0) disposeGeneration(gen, 'TIMEOUT');
      conclude();
    }, task.timeoutMs);

    function conclude(): void {
      if (answered) return;
      if (!timedOut && fault === undefined && (done === undefined || scope.entering > 0)) return;
      answered = true;
      clearTimeout(timer);
      const idle = !timedOut && fault === undefined && scope.entering === 0 && scope.held === 0 && replies.length === 0;
      scope.end();
      let result: WorkerResult;
      const heap = heapNow(gen);
      if (timedOut) result = failure('TIMEOUT', `Plugin execution timed out after ${task.timeoutMs / 1000} s`, 504, { details: { timeout: task.timeoutMs / 1000 } });
      else if (fault !== undefined) result = classify(fault, gen, task);
      else if (heap && heap.used > heap.limit) {
        // V8 lets a large string or array past the heap limit until its next collection: over the cap all the same.
        result = memoryExceeded(task);
        retire(gen);
      } else result = verdict(done!, task, limited);
      if (done && task.emitLogs) result.logs = readLogs(done.logs, limits);
      if (traces) result.traces = traces.entries;
      resolve(result);
      const grew = !(typeof done?.reserved === 'number' && slot && done.reserved <= slot.reservedAtLoad);
      if (slot) afterCall(gen, slot, idle && !grew, !result.ok, heap);
    }

    /** Hands the replies that arrived to the isolate, in one entry; never two entries of one call at once. */
    function pump(): void {
      if (answered || !slot || scope.entering > 0 || replies.length === 0) return;
      const batch = replies;
      replies = [];
      const target = slot;
      scope.enter(() => enter(gen, target.deliver, [seq, batch], remaining()));
    }

    scope.onChange((error) => {
      if (error !== undefined) fault ??= error;
      if (done !== undefined || fault !== undefined) conclude();
      else pump();
    });

    const reply = (id: number, text: string) => {
      replies.push(id, text);
      pump();
    };
    const refuse = (id: number, code: string, message: string, status: number, details: Record<string, unknown> = {}) =>
      reply(id, JSON.stringify({ ok: false, error: { code, message, status, details } }));

    function hostCall(id: unknown, op: unknown, args: unknown): void {
      if (typeof id !== 'number' || !Number.isSafeInteger(id)) return;
      if (typeof op !== 'string' || !HOST_OPS.has(op)) return refuse(id, 'VALIDATION_FAILED', 'unknown host operation', 400);
      if (typeof args !== 'string' || Buffer.byteLength(args) > limits.maxHostArgBytes) {
        return refuse(id, 'VALIDATION_FAILED', `api/kv arguments exceed ${limits.maxHostArgBytes} bytes`, 400, { limit: limits.maxHostArgBytes });
      }
      if (++apiCalls > limits.maxApiCalls) {
        limited = true;
        return refuse(id, 'API_CALL_LIMIT', `a plugin call may make at most ${limits.maxApiCalls} api/kv calls`, 429);
      }
      argBytes += args.length;
      if (argBytes > limits.maxHostArgBytesPerCall) {
        limited = true;
        return refuse(id, 'API_CALL_LIMIT', `a plugin call may send at most ${limits.maxHostArgBytesPerCall} bytes of api/kv arguments`, 429);
      }
      if (traces && op.startsWith('relayer.')) traceOf(traces, op, args);
      const request = ask({ t: 'host', plugin: task.plugin, op: op as HostOp, args, deadline });
      const hold = scope.hold(() => cancelRequests([request.id]));
      request.reply.then((text) => {
        if (scope.ended || !hold) return;
        replies.push(id, text);
        hold.release();
      });
    }

    function onMessage(kind: unknown, s: unknown, a: unknown, b: unknown, c: unknown, d: unknown): void {
      if (s !== seq || answered) return;
      if (kind === 'call') hostCall(a, b, c);
      else if (kind === 'done' && done === undefined) {
        done = { kind: a, text: b, logs: c, reserved: d };
        conclude();
      }
    }

    const start = async () => {
      const ready = gen.free.pop() ?? (await createSlot(gen, limits, remaining())).slot;
      if (answered) {
        releaseSlot(ready);
        return;
      }
      slot = ready;
      slot.listener = onMessage;
      scope.enter(() => enter(gen, ready.run, [seq, task.input, task.config, task.emitLogs], remaining()));
    };
    start().catch((err: unknown) => {
      fault ??= err;
      conclude();
    });
  });
}

async function call(task: CallTask): Promise<WorkerResult> {
  if (data.faultStallWorkerOn === task.plugin) stallThisThread();
  const code = await codeFor(task.hash);
  const gen = generationFor(task, code);
  gen.lastUsed = Date.now();
  gen.inFlight.add(task.callId);
  try {
    return await runCall(task, gen);
  } finally {
    gen.inFlight.delete(task.callId);
    if (gen.retired) retire(gen);
  }
}

/** Test-only fault injection (PLUGIN_FAULT_STALL_WORKER): this worker's event loop stops answering. */
function stallThisThread(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
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
    const { slot, info } = await createSlot(gen, limits, task.timeoutMs);
    releaseSlot(slot);
    return { ok: true, hasHandler: info.hasHandler, settings: info.settings };
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    if (timedOut || /timed out/i.test(message)) return { ok: false, error: { code: 'LOAD_ERROR', message: `Plugin top-level code did not finish within ${task.timeoutMs} ms`, status: 500 } };
    if (/memory/i.test(message)) return { ok: false, error: { code: 'MEMORY_LIMIT_EXCEEDED', message: 'Plugin exceeded its memory limit while loading', status: 500 } };
    return { ok: false, error: { code: 'LOAD_ERROR', message: `Plugin failed to load: ${message.slice(0, 2000)}`, status: 500 } satisfies ErrorData };
  } finally {
    clearTimeout(timer);
    disposeGeneration(gen, 'RETIRED');
  }
}

export default function run(task: WorkerTask): Promise<WorkerResult | InspectResult> {
  return task.kind === 'call' ? call(task) : inspect(task);
}
