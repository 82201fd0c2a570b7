// One plugin call inside a worker, from its first entry into the isolate to its answer. The call answers once the
// prelude reported 'done' and none of its entries runs (or at its deadline, or when an entry failed); its scope
// then ends, which cancels the host calls it still has out, and its context goes back only if left idle.
import { workerData } from 'node:worker_threads';
import { isolateCallChannel, type RuntimeCallContext } from '../common/diagnostics.ts';
import { runtimeError } from '../common/errors.ts';
import { createCallScope, type CallScope } from './call-scope.ts';
import { createCallTimers, type CallTimers } from './call-timers.ts';
import { afterCall, heapNow, heapWithinLimit, retire } from './generations.ts';
import { createTraceBook, failure, readLogs, readPluginError, readResult, tooLarge } from './outcome.ts';
import { HOST_OPS, type CallTask, type HostOp, type WorkerData, type WorkerResult } from '../protocol.ts';
import {
  createSlot,
  disposeGeneration,
  enter,
  enterFirst,
  LoadError,
  randomSeed,
  releaseSlot,
  type Generation,
  type SandboxListener,
  type Slot,
} from './sandbox.ts';
import { createLocalOps, startLocal, type LocalOps } from './local-ops.ts';
import { ask, cancelRequests } from './worker-bridge.ts';

const { limits } = workerData as WorkerData;
let nextSeq = 0;

interface Done {
  kind: unknown;
  text: unknown;
  logs: unknown;
  reserved: unknown;
}

interface CallRun {
  task: CallTask;
  gen: Generation;
  deadline: number;
  seq: number;
  scope: CallScope;
  traces: ReturnType<typeof createTraceBook> | undefined;
  /** Host replies waiting for the next entry: [request id, reply JSON, …]. */
  replies: Array<number | string>;
  slot: Slot | undefined;
  done: Done | undefined;
  fault: unknown;
  timedOut: boolean;
  answered: boolean;
  apiCalls: number;
  argBytes: number;
  /** Reserved codes really given to this call (API_CALL_LIMIT, a transactionWait's TIMEOUT): they may stand in its answer. */
  granted: Set<string> | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The diagnostics context (isolateCallChannel), only while someone subscribes; `entered` once its start is published. */
  trace: (RuntimeCallContext & { entered?: true }) | undefined;
  /** The plugin's pending timers (setTimeout/setInterval). */
  timers: CallTimers;
  /** fetch and crypto.subtle requests the worker answers itself (runtime/worker/local-ops.ts); made at the first one. */
  local: LocalOps | undefined;
  /** The isolate's messages while this call's context serves it (Slot.owner). */
  receive: SandboxListener;
  resolve(result: WorkerResult): void;
}

type Refusal = { code: string; message: string; status: number };
/** A host call refused by one of the runtime's limits (runtime/common/errors.ts). */
const refusedBy = (verdict: 'apiCalls' | 'apiArgBytes', limit: number): Refusal => {
  const { code, message, status } = runtimeError(verdict, { limit });
  return { code, message, status };
};
/** Notes a refusal by API_CALL_LIMIT: then, and only then, the call may answer with that reserved code. */
function limited(run: { granted: Set<string> | undefined }, refused: Refusal | undefined): Refusal | undefined {
  if (refused?.code === 'API_CALL_LIMIT') (run.granted ??= new Set()).add('API_CALL_LIMIT');
  return refused;
}
/** What a call that was given no reserved code answers with: most calls (no Set made per call). */
const NONE_GRANTED: ReadonlySet<string> = new Set();
/** How the host answers a transactionWait past its timeout (src/plugin-host/host-calls.ts): 504 TIMEOUT, as the reference. */
const WAIT_TIMED_OUT = '{"ok":false,"error":{"code":"TIMEOUT"';
const remaining = (run: CallRun) => Math.max(1, run.deadline - Date.now());
const memoryExceeded = (task: { memoryMb: number }) =>
  failure('memory', { memory_mb: task.memoryMb }, { memory_mb: task.memoryMb });
const timeout = (task: CallTask) =>
  failure('timeout', { timeout: task.timeoutMs / 1000 }, { timeout: task.timeoutMs / 1000 });

/** An entry into the isolate failed: why, as the client should hear it. */
function classify(err: unknown, gen: Generation, task: CallTask): WorkerResult {
  const message = (err as Error)?.message ?? String(err);
  if (/execution timed out/i.test(message)) return timeout(task);
  if (gen.dead === 'TIMEOUT' || gen.dead === 'ROGUE' || gen.dead === 'RETIRED') {
    return failure('sandboxReset');
  }
  if (/memory limit|out of memory|disposed/i.test(message)) {
    disposeGeneration(gen, 'MEMORY');
    return memoryExceeded(task);
  }
  if (err instanceof LoadError) return failure('loadError', { reason: message });
  return failure('sandboxError', { reason: message.slice(0, 500) });
}

/** What the prelude reported, read and bounded on this side. */
function verdict(done: Done, task: CallTask, granted: ReadonlySet<string>): WorkerResult {
  switch (done.kind) {
    case 'ok':
      return readResult(done.text, limits);
    case 'error':
      return { ok: false, error: readPluginError(done.text, limits, granted) };
    case 'invalid':
      return failure('notSerializable', {
        reason: typeof done.text === 'string' ? done.text.slice(0, limits.maxErrorMessageChars) : 'unknown reason',
      });
    case 'too-large':
      return tooLarge(limits);
    case 'memory':
      return memoryExceeded(task);
  }
  return failure('unknownOutcome');
}

/** Answers once nothing the call started can run any more. */
function conclude(run: CallRun): void {
  const { task, gen, scope, done } = run;
  if (run.answered) return;
  if (!run.timedOut && run.fault === undefined && (done === undefined || scope.entering > 0)) return;
  run.answered = true;
  clearTimeout(run.timer);
  // Pending timers do not make the context unsafe to reuse: ending the scope clears them, so no reply of theirs
  // can ever arrive. Any other hold (a host call, a fetch) might.
  const idle =
    !run.timedOut &&
    run.fault === undefined &&
    scope.entering === 0 &&
    scope.held === run.timers.size &&
    run.replies.length === 0;
  scope.end();
  // Read in full unless the call ended well and its CPU time could not have taken the heap past the limit; a failed
  // one's heap decides whether its isolate is kept (afterCall).
  const clean = !run.timedOut && run.fault === undefined && done?.kind === 'ok';
  const heap = clean && heapWithinLimit(gen) ? undefined : heapNow(gen);
  let result: WorkerResult;
  if (run.timedOut) result = timeout(task);
  else if (run.fault !== undefined) result = classify(run.fault, gen, task);
  else if (heap && heap.used > heap.limit) {
    // V8 lets a large string or array past the heap limit until its next collection: over the cap all the same.
    result = memoryExceeded(task);
    retire(gen);
  } else result = verdict(done!, task, run.granted ?? NONE_GRANTED);
  if (done && task.emitLogs) result.logs = readLogs(done.logs, limits);
  if (run.traces) result.traces = run.traces.entries;
  if (run.trace?.entered) isolateCallChannel.asyncEnd.publish(run.trace);
  run.resolve(result);
  if (!run.slot) return;
  const reserved = typeof done?.reserved === 'number' && done.reserved <= run.slot.reservedAtLoad;
  afterCall(gen, run.slot, idle && reserved, !result.ok, heap);
}

/** Hands the replies that arrived to the isolate, in one entry; never two entries of one call at once. */
function pump(run: CallRun): void {
  const slot = run.slot;
  if (run.answered || !slot || run.scope.entering > 0 || run.replies.length === 0) return;
  const batch = run.replies;
  run.replies = [];
  // One reply travels as primitives (cheap to copy); several as one array.
  const args = batch.length === 2 ? [run.seq, batch[0], batch[1]] : [run.seq, batch];
  run.scope.enter(() => enter(run.gen, slot.deliver, args, remaining(run)));
}

function reply(run: CallRun, id: number, text: string): void {
  run.replies.push(id, text);
  pump(run);
}

/** Why a host call may not go out (checked on what arrived, whatever the prelude checked), or undefined. */
function refusal(run: CallRun, op: unknown, args: unknown): Refusal | undefined {
  if (typeof op !== 'string' || (!HOST_OPS.has(op) && op !== 'fetch'))
    return { code: 'VALIDATION_FAILED', message: 'unknown host operation', status: 400 };
  if (typeof args !== 'string' || Buffer.byteLength(args) > limits.maxHostArgBytes) {
    return {
      code: 'VALIDATION_FAILED',
      message: `api/kv arguments exceed ${limits.maxHostArgBytes} bytes`,
      status: 400,
    };
  }
  if (++run.apiCalls > limits.maxApiCalls) return refusedBy('apiCalls', limits.maxApiCalls);
  run.argBytes += args.length;
  if (run.argBytes > limits.maxHostArgBytesPerCall) {
    return refusedBy('apiArgBytes', limits.maxHostArgBytesPerCall);
  }
  return undefined;
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

/** An api/kv call from the isolate: checked, traced, sent to the host under a hold of the call's scope. */
function hostCall(run: CallRun, id: unknown, op: unknown, args: unknown): void {
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return;
  if (op === 'fetch' || op === 'crypto.subtle') {
    startLocal((run.local ??= createLocalOps(run.task)), {
      id,
      op,
      args,
      deadline: run.deadline,
      scope: run.scope,
      traces: run.traces,
      limits,
      deliver: (text) => run.replies.push(id, text),
      countApiCall: () => limited(run, refusal(run, 'fetch', args)),
    });
    return;
  }
  const refused = refusal(run, op, args);
  if (refused) {
    limited(run, refused);
    reply(run, id, JSON.stringify({ ok: false, error: { ...refused, details: {} } }));
    return;
  }
  if (run.traces && (op as string).startsWith('relayer.')) traceOf(run.traces, op as string, args as string);
  const request = ask({
    t: 'host',
    plugin: run.task.plugin,
    op: op as HostOp,
    args: args as string,
    deadline: run.deadline,
  });
  const hold = run.scope.hold(() => cancelRequests([request.id]));
  request.reply.then((text) => {
    if (run.scope.ended || !hold) return;
    if (op === 'relayer.waitTransaction' && text.startsWith(WAIT_TIMED_OUT)) (run.granted ??= new Set()).add('TIMEOUT');
    run.replies.push(id, text);
    hold.release();
  });
}

function onMessage(run: CallRun, kind: unknown, seq: unknown, a: unknown, b: unknown, c: unknown, d: unknown): void {
  if (seq !== run.seq || run.answered) return;
  if (kind === 'call') hostCall(run, a, b, c);
  else if (kind === 'timer') run.timers.start(a, b);
  else if (kind === 'untimer') run.timers.stop(a);
  else if (kind === 'abort') run.local?.abort(a);
  else if (kind === 'done' && run.done === undefined) {
    run.done = { kind: a, text: b, logs: c, reserved: d };
    conclude(run);
  }
}

/**
 * The call's deadline, armed once the call goes asynchronous: a call that ends within its synchronous first entry
 * is bounded by that entry's own timeout (sandbox.ts enterFirst) and needs no timer of its own.
 */
function armDeadline(run: CallRun): void {
  if (run.timer !== undefined || run.answered) return;
  run.timer = setTimeout(() => {
    run.timedOut = true;
    // Plugin code of this call still running (or queued) in the isolate: only disposal stops it now.
    if (run.scope.entering > 0) disposeGeneration(run.gen, 'TIMEOUT');
    conclude(run);
  }, remaining(run));
}

async function start(run: CallRun): Promise<void> {
  const { gen, task } = run;
  for (;;) {
    const free = gen.free.pop();
    if (!free) armDeadline(run);
    const slot = free ?? (await createSlot(gen, limits, remaining(run), task.env)).slot;
    if (run.answered) {
      releaseSlot(slot);
      return;
    }
    run.slot = slot;
    slot.owner = run;
    if (run.trace && !run.trace.entered) {
      run.trace.entered = true;
      isolateCallChannel.start.publish(run.trace);
    }
    // Synchronous while the isolate is idle (sandbox.ts enterFirst); its messages arrive like those of any entry.
    // The last argument asks the prelude to hold the call's 'done' for `collect` (synchronous entries only).
    const sync = gen.syncFirst && gen.running === 0 && !gen.dead;
    const args = [run.seq, task.input, task.config, task.emitLogs, randomSeed(), sync];
    const first = sync ? enterFirst(slot, args, remaining(run)) : undefined;
    if (first === undefined || first === 'ran') armDeadline(run);
    if (first === undefined) run.scope.enter(() => enter(gen, slot.run, args, remaining(run)));
    else if (typeof first === 'object' && 'done' in first) {
      const [kind, text, logs, reserved] = first.done;
      onMessage(run, 'done', run.seq, kind, text, logs, reserved);
    } else if (typeof first === 'object') {
      run.fault ??= first.error;
      conclude(run);
    } else if (first === 'sliced') {
      // Cut before it could reach the host: its context (left mid-call) and queued messages go, and the call starts
      // over in another context under a new sequence number.
      slot.owner = null;
      releaseSlot(slot);
      run.slot = undefined;
      run.seq = ++nextSeq;
      continue;
    }
    return;
  }
}

/** One call in `gen`: resolves with its answer once nothing it started can run any more. */
export function runCall(task: CallTask, gen: Generation): Promise<WorkerResult> {
  return new Promise<WorkerResult>((resolve) => {
    const scope = createCallScope();
    const run: CallRun = {
      task,
      gen,
      deadline: Date.now() + task.timeoutMs,
      seq: ++nextSeq,
      scope,
      traces: task.emitTraces ? createTraceBook(limits, task.requestId) : undefined,
      replies: [],
      slot: undefined,
      done: undefined,
      fault: undefined,
      timedOut: false,
      answered: false,
      apiCalls: 0,
      argBytes: 0,
      granted: undefined,
      timer: undefined,
      trace: isolateCallChannel.hasSubscribers
        ? { id: task.callId, plugin: task.plugin, requestId: task.requestId }
        : undefined,
      timers: createCallTimers(scope, limits.maxTimers, (id, text) => run.replies.push(id, text)),
      local: undefined,
      receive: (kind, seq, a, b, c, d) => onMessage(run, kind, seq, a, b, c, d),
      resolve,
    };
    run.scope.onChange((error) => {
      if (error !== undefined) run.fault ??= error;
      if (run.done !== undefined || run.fault !== undefined) conclude(run);
      else pump(run);
    });
    start(run).catch((err: unknown) => {
      run.fault ??= err;
      conclude(run);
    });
  });
}
