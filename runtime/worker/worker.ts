// Room: runtime/worker (a Piscina worker thread; see README.md here). Trusts nothing that comes out of an isolate.
// Piscina worker: runs plugin calls (runtime/worker/call-run.ts) and inspections in isolated-vm. Warm mode keeps loaded
// contexts per plugin and reuses one only when its call left it idle; fresh mode makes one context per call and
// recycles the isolate only once no call is running in it.
import { workerData } from 'node:worker_threads';
import { runCall } from './call-run.ts';
import { generationFor, retire } from './generations.ts';
import type { CallTask, ErrorData, InspectResult, InspectTask, WorkerData, WorkerResult, WorkerTask } from '../protocol.ts';
import { createGeneration, createSlot, disposeGeneration, releaseSlot } from './sandbox.ts';
import { codeFor } from './worker-bridge.ts';

const data = workerData as WorkerData;

async function call(task: CallTask): Promise<WorkerResult> {
  const from = task.timing ? performance.now() : 0;
  if (data.faultStallWorkerOn === task.plugin) stallThisThread();
  const code = await codeFor(task.hash);
  const gen = generationFor(task, code);
  gen.lastUsed = Date.now();
  gen.inFlight.add(task.callId);
  try {
    const result = await runCall(task, gen);
    // runCall put the isolate's part in timing[1]; the worker's whole task goes in front of it.
    if (result.timing) result.timing[0] = performance.now() - from;
    return result;
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
    const { slot, info } = await createSlot(gen, data.limits, task.timeoutMs);
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
