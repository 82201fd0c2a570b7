// The Piscina pool of sandbox workers: sized once, warm workers kept. Admission (per-plugin caps, the global queue)
// happens before it, in runtime/process/scheduler.ts, so the pool itself never queues a call.
import { Piscina } from 'piscina';
import { runtimeError } from '../common/errors.ts';
import { WORKER_YOUNG_GENERATION_MB } from '../common/process-flags.ts';
import type { CallTask, InspectResult, InspectTask, RuntimeOptions, WorkerData, WorkerResult } from '../protocol.ts';
import type { WatchedWorker } from './watchdog.ts';

export interface SandboxPool {
  call(task: CallTask): Promise<WorkerResult>;
  inspect(task: InspectTask): Promise<InspectResult>;
  /** The live worker threads (the watchdog pings them). */
  threads(): WatchedWorker[];
  /** Tasks completed so far (Piscina's own count, kept whether read or not): the idle release watches it move. */
  completed(): number;
  close(): Promise<void>;
}

export function createPool(options: RuntimeOptions): SandboxPool {
  const workerData: WorkerData = {
    contextMode: options.contextMode,
    concurrency: options.concurrency,
    limits: options.limits,
    faults: options.faults,
  };
  const pool = new Piscina({
    // A CommonJS entry: see worker-entry.cjs for why Piscina must not require() worker.ts itself.
    filename: new URL('../worker/worker-entry.cjs', import.meta.url).href,
    minThreads: options.threads,
    maxThreads: options.threads,
    // Warm isolates live in the workers: never throw idle workers away (Piscina's default is immediate).
    idleTimeout: 24 * 60 * 60 * 1000,
    // 'sync' would park the worker's event loop between tasks, freezing deadline timers and host replies.
    atomics: 'disabled',
    concurrentTasksPerWorker: options.concurrency,
    workerData,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    // Piscina's run/wait-time histograms: recorded per task and never read here.
    recordTiming: false,
  });
  // A worker that dies with no task in flight (the watchdog terminated an idle one) is reported as an 'error'.
  pool.on('error', () => {});

  return {
    async call(task) {
      try {
        return (await pool.run(task)) as WorkerResult;
      } catch (err) {
        // A worker that crashed or was terminated rejects its tasks ("worker exited"); Piscina replaces it.
        return { ok: false, error: runtimeError('workerFailed', { reason: String((err as Error)?.message ?? err) }) };
      }
    },
    async inspect(task) {
      try {
        return (await pool.run(task)) as InspectResult;
      } catch (err) {
        return { ok: false, error: runtimeError('uninspectable', { reason: String((err as Error)?.message ?? err) }) };
      }
    },
    threads: () => pool.threads as unknown as WatchedWorker[],
    completed: () => pool.completed,
    close: () => pool.destroy(),
  };
}
