// The Piscina pool of sandbox workers: sized once, warm workers kept, a bounded queue that answers "busy".
import { Piscina } from 'piscina';
import { WORKER_YOUNG_GENERATION_MB, type CallTask, type InspectResult, type InspectTask, type RuntimeOptions, type WorkerData, type WorkerResult } from './protocol.ts';

export interface SandboxPool {
  call(task: CallTask): Promise<WorkerResult>;
  inspect(task: InspectTask): Promise<InspectResult>;
  close(): Promise<void>;
}

export function createPool(options: RuntimeOptions): SandboxPool {
  const workerData: WorkerData = { contextMode: options.contextMode, concurrency: options.concurrency, limits: options.limits };
  const pool = new Piscina({
    // A CommonJS entry: see worker-entry.cjs for why Piscina must not require() worker.ts itself.
    filename: new URL('./worker-entry.cjs', import.meta.url).href,
    minThreads: options.threads,
    maxThreads: options.threads,
    // Warm isolates live in the workers: never throw idle workers away (Piscina's default is immediate).
    idleTimeout: 24 * 60 * 60 * 1000,
    // 'sync' would park the worker's event loop between tasks, freezing deadline timers and host replies.
    atomics: 'disabled',
    concurrentTasksPerWorker: options.concurrency,
    maxQueue: options.maxQueue,
    workerData,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });

  const run = async <T>(task: CallTask | InspectTask): Promise<T> => {
    try {
      return (await pool.run(task)) as T;
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      if (/queue is at limit/i.test(message)) throw new PoolBusyError();
      throw err;
    }
  };

  return {
    async call(task) {
      try {
        return await run<WorkerResult>(task);
      } catch (err) {
        if (err instanceof PoolBusyError) {
          return { ok: false, error: { code: 'RUNTIME_BUSY', message: 'plugin runtime queue is full; retry shortly', status: 503, retryAfter: 1 } };
        }
        // A worker that crashed rejects its tasks ("worker exited"); Piscina replaces it.
        return { ok: false, error: { code: 'RUNTIME_UNAVAILABLE', message: `plugin worker failed: ${(err as Error)?.message ?? err}`, status: 503, retryAfter: 1 } };
      }
    },
    async inspect(task) {
      try {
        return await run<InspectResult>(task);
      } catch (err) {
        return { ok: false, error: { code: 'LOAD_ERROR', message: `plugin could not be inspected: ${(err as Error)?.message ?? err}`, status: 500 } };
      }
    },
    close: () => pool.destroy(),
  };
}

class PoolBusyError extends Error {}
