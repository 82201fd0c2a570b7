// Room: runtime/worker (a Piscina worker thread; see README.md here). Trusts nothing that comes out of an isolate.
// Piscina worker: runs plugin calls (runtime/worker/call-run.ts) and inspections in isolated-vm. Warm mode keeps loaded
// contexts per plugin and reuses one only when its call left it idle; fresh mode makes one context per call and
// recycles the isolate only once no call is running in it.
import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import { runCall } from './call-run.ts';
import { generationFor, liveGeneration, retire } from './generations.ts';
import { workerTaskChannel } from '../common/diagnostics.ts';
import { runtimeError } from '../common/errors.ts';
import { createHeapRelease } from '../common/heap-release.ts';
import {
  RELEASE_CHANNEL,
  type CallTask,
  type InspectResult,
  type InspectTask,
  type WorkerData,
  type WorkerRelease,
  type WorkerResult,
  type WorkerTask,
} from '../protocol.ts';
import { createGeneration, createSlot, disposeGeneration, releaseSlot, type Generation } from './sandbox.ts';
import { codeFor } from './worker-bridge.ts';

const data = workerData as WorkerData;

/** The generations this worker's calls went to (pruned at each release), so that an idle release can find them. */
const served = new Set<Generation>();
let lastServed: Generation | undefined;

/** Only when a call goes to another generation than the last one did (not per call of one plugin). */
function serve(gen: Generation): void {
  served.add(gen);
  // A load that never idles keeps no dead generations here (hot reloads, isolates retired by generations.ts).
  if (served.size > 256) for (const g of served) if (g.dead || g.retired) served.delete(g);
}

async function call(task: CallTask): Promise<WorkerResult> {
  if (data.faults?.stallWorkerOn === task.plugin) stallThisThread();
  // The bundle's code only for a new generation: a warm one already compiled it (no await per call).
  const gen = liveGeneration(task) ?? generationFor(task, await codeFor(task.hash));
  if (gen !== lastServed) serve((lastServed = gen));
  gen.lastUsed = Date.now();
  gen.inFlight.add(task.callId);
  try {
    return await runCall(task, gen);
  } finally {
    gen.inFlight.delete(task.callId);
    if (gen.retired) retire(gen);
  }
}

/** Fault injection a test asked for (RuntimeFaults): this worker's event loop stops answering. */
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
    const { slot, info } = await createSlot(gen, data.limits, task.timeoutMs);
    releaseSlot(slot);
    return { ok: true, hasHandler: info.hasHandler, settings: info.settings };
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    if (timedOut || /timed out/i.test(message))
      return { ok: false, error: runtimeError('loadTimeout', { timeout_ms: task.timeoutMs }) };
    if (/memory/i.test(message)) return { ok: false, error: runtimeError('memoryLoading') };
    return { ok: false, error: runtimeError('loadError', { reason: message.slice(0, 2000) }) };
  } finally {
    clearTimeout(timer);
    disposeGeneration(gen, 'RETIRED');
  }
}

export default function run(task: WorkerTask): Promise<WorkerResult | InspectResult> {
  if (task.kind !== 'call') return inspect(task);
  // Traced only for a subscriber (bench/hop-probe.ts): otherwise no context is made.
  if (!workerTaskChannel.hasSubscribers) return call(task);
  return workerTaskChannel.tracePromise(
    call,
    { id: task.callId, plugin: task.plugin, requestId: task.requestId },
    undefined,
    task,
  );
}

// ── Memory after a load (runtime/process/server.ts asks, once no call has completed for a few seconds) ──────────
// A burst leaves each warm isolate holding a context per call it ran at once (8 with the default concurrency: the
// echo isolate 2 → 7.5 MiB), and an idle isolate never collects: those contexts and their garbage stay until the
// isolate goes (generations.ts retires it after 2 idle minutes). An idle isolate that a burst grew is disposed now;
// the next call builds it again with one context. This thread's own heap is collected where it grew.

const releaseHeap = createHeapRelease();

/** Disposes the idle isolates holding more contexts than one call needs; how many. */
function releaseIsolates(): number {
  let disposed = 0;
  for (const gen of served) {
    if (gen.dead || gen.retired) {
      served.delete(gen);
      continue;
    }
    // Warm mode keeps the contexts in `free`; fresh mode's released contexts wait in the isolate for a collection.
    const grown = data.contextMode === 'warm' ? gen.free.length > 1 : gen.contexts > 1;
    if (gen.inFlight.size === 0 && grown) {
      retire(gen);
      served.delete(gen);
      disposed++;
    }
  }
  if (lastServed && !served.has(lastServed)) lastServed = undefined;
  return disposed;
}

const release = new BroadcastChannel(RELEASE_CHANNEL);
release.unref();
release.onmessage = (event) => {
  const msg = (event as unknown as { data: WorkerRelease }).data;
  // The channel also carries the other workers' answers.
  if (msg?.t !== 'release') return;
  const isolates = releaseIsolates();
  void releaseHeap().then(({ heapBefore, heapAfter }) =>
    release.postMessage({ t: 'released', worker: threadId, heapBefore, heapAfter, isolates } satisfies WorkerRelease),
  );
};
