// Room: runtime/common (see README.md here). A thread's own heap given back after a load: the runtime main thread
// and each worker run it when told the load is over (runtime/process/server.ts, runtime/worker/worker.ts).
import { getHeapStatistics } from 'node:v8';

/**
 * A memory-reducing full collection of the calling thread's heap, through the inspector (HeapProfiler.collectGarbage,
 * as a heap snapshot's "collect garbage" button), for the idle release (WorkerRelease in runtime/protocol.ts). Not --expose-gc: V8 flags are process-wide,
 * and that one would put a `gc` function in every plugin isolate's global scope. Resolves once done, at once where
 * there is no inspector. node:inspector is loaded on the first release only.
 */
async function collectGarbage(): Promise<void> {
  const { Session } = await import('node:inspector');
  const session = new Session();
  try {
    session.connect();
  } catch {
    return;
  }
  await new Promise<void>((resolve) =>
    session.post('HeapProfiler.collectGarbage', () =>
      // Not inside the callback: a session disconnected from its own callback never returns (Node 24).
      setImmediate(() => {
        session.disconnect();
        resolve();
      }),
    ),
  );
}

/**
 * The calling thread's collection for that release, only where its V8 heap grew by `minGrowth` bytes since its
 * last one (a collection of a 25 MiB heap is ~15-25 ms of CPU, measured in a bare thread). One per thread: each keeps
 * the heap size its last collection left. Resolves to the heap before and after, in bytes (the same when not collected).
 */
export function createHeapRelease(
  minGrowth = 2 * 1024 * 1024,
): () => Promise<{ heapBefore: number; heapAfter: number }> {
  let heapAfterCollect = 0;
  return async () => {
    const heapBefore = getHeapStatistics().total_heap_size;
    if (heapBefore - heapAfterCollect < minGrowth) return { heapBefore, heapAfter: heapBefore };
    await collectGarbage();
    heapAfterCollect = getHeapStatistics().total_heap_size;
    return { heapBefore, heapAfter: heapAfterCollect };
  };
}
