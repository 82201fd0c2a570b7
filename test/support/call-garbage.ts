// Run as `node --no-node-snapshot test/support/call-garbage.ts N` (isolated-vm needs the flag on the process): a worker
// thread sized as the pool's (runtime/process/pool.ts) makes N warm echo calls through runtime/worker/call-run.ts,
// three times, and prints, as JSON, the least bytes its scavenges moved to the old generation per call (v8.GCProfiler,
// before and after each minor collection). A call's garbage should die young: promoted bytes per call stay near zero.
import { GCProfiler } from 'node:v8';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { WORKER_YOUNG_GENERATION_MB } from '../../runtime/common/process-flags.ts';
import type { CallTask, WorkerData } from '../../runtime/protocol.ts';
import { RUNTIME_LIMITS } from '../../src/plugin-host/limits.ts';

const ECHO =
  '(function (module, exports) { exports.handler = async function handler(context) { return context.params; }; })';

interface Measure {
  calls: number;
  promotedPerCall: number;
  scavenges: number;
  windows: Array<{ promotedPerCall: number; scavenges: number }>;
}

async function calls(n: number): Promise<Measure> {
  // Imported here: they read workerData when loaded.
  const { runCall } = await import('../../runtime/worker/call-run.ts');
  const { createGeneration } = await import('../../runtime/worker/sandbox.ts');
  const gen = createGeneration('echo', 'echo-hash', ECHO, 64);
  const task = (callId: number): CallTask => ({
    kind: 'call',
    callId,
    plugin: 'echo',
    hash: 'echo-hash',
    input: JSON.stringify({ params: { hello: 'world', n: callId }, headers: {}, route: '', method: 'POST', query: {} }),
    config: '{}',
    requestId: `r-${callId}`,
    timeoutMs: 30_000,
    memoryMb: 64,
    emitLogs: false,
    emitTraces: false,
    allowedOrigins: [],
    env: '{}',
  });
  // Warm: the context built, the code optimised.
  for (let i = 0; i < 2000; i++) await runCall(task(i), gen);
  const old = (s: { heapSpaceStatistics: Array<{ spaceName: string; spaceUsedSize: number }> }) =>
    s.heapSpaceStatistics.find((x) => x.spaceName === 'old_space')?.spaceUsedSize ?? 0;
  // Three windows; the least promoted is the measure. Anything else running on the machine can only add promotions
  // (a call cut at its slice and built again in a new context, the worker descheduled mid-call), never remove them.
  const windows: Array<{ promotedPerCall: number; scavenges: number }> = [];
  for (let w = 0; w < 3; w++) {
    const profiler = new GCProfiler();
    profiler.start();
    for (let i = 0; i < n; i++) {
      const out = await runCall(task(i), gen);
      if (!out.ok) throw new Error(JSON.stringify(out));
    }
    const scavenges = profiler.stop().statistics.filter((s) => s.gcType === 'Scavenge');
    const promoted = scavenges.reduce((sum, s) => sum + Math.max(0, old(s.afterGC) - old(s.beforeGC)), 0);
    windows.push({ promotedPerCall: promoted / n, scavenges: scavenges.length });
  }
  const least = windows.reduce((a, b) => (b.promotedPerCall < a.promotedPerCall ? b : a));
  return { calls: n, ...least, windows };
}

if (isMainThread) {
  const data: WorkerData = { contextMode: 'warm', concurrency: 8, limits: RUNTIME_LIMITS };
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { ...data, n: Number(process.argv[2] ?? 20_000) },
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  worker.once('message', (m) => {
    process.stdout.write(`${JSON.stringify(m)}\n`);
    void worker.terminate();
  });
  worker.once('error', (err) => {
    process.stderr.write(`${String(err?.stack ?? err)}\n`);
    process.exitCode = 1;
  });
} else {
  // A rejection ends the worker with an 'error', which the main thread prints.
  void calls((workerData as { n: number }).n).then((r) => parentPort!.postMessage(r));
}
