// The isolates ("generations") a worker keeps, one per plugin bundle: which one serves a call, when one retires,
// and what becomes of a context after its call.
import { workerData } from 'node:worker_threads';
import type { CallTask, WorkerData } from '../protocol.ts';
import {
  createGeneration,
  disposeGeneration,
  ranUnattended,
  releaseSlot,
  type Generation,
  type Slot,
} from './sandbox.ts';

const data = workerData as WorkerData;
/** Fresh mode: contexts made in one isolate before it is retired (released contexts are collected late). */
const FRESH_CONTEXTS_PER_ISOLATE = 100;
/** Plugins kept warm per worker; the least recently used idle one is disposed beyond this. */
const MAX_GENERATIONS = 64;
/** A plugin with no call in this worker for this long gives its isolate back (the next call loads it again). */
const IDLE_RETIRE_MS = 2 * 60_000;
/** A loaded warm isolate's heap is ~2 MiB (measured); after a failed call, more than this is garbage worth dropping. */
const RETIRE_AFTER_FAILURE_HEAP_BYTES = 8 * 1024 * 1024;
/** Isolate time spent while the host had no entry in it that counts as code escaping the entry discipline. */
const UNATTENDED_CPU_NS = 100_000_000n;

const generations = new Map<string, Generation>();

// Backstops, four times a second: an isolate that runs while no call of ours is in it is disposed, whatever made it
// run; so is a busy isolate whose heap went past its limit (V8 lets a large string or array past it until its next
// collection; an idle isolate is checked as each call ends, see heapNow and heapWithinLimit).
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

// Idle plugins release their memory: disposing the isolate frees its heap at once (released contexts would wait for
// a collection that an idle isolate never runs).
setInterval(() => {
  const now = Date.now();
  for (const gen of generations.values())
    if (gen.inFlight.size === 0 && now - gen.lastUsed > IDLE_RETIRE_MS) retire(gen);
}, 10_000).unref();

export function retire(gen: Generation): void {
  gen.retired = true;
  if (generations.get(gen.plugin) === gen) generations.delete(gen.plugin);
  if (gen.inFlight.size === 0) disposeGeneration(gen, 'RETIRED');
}

/** The plugin's live generation when it runs this task's bundle and limit (the code is then not needed). */
export function liveGeneration(task: CallTask): Generation | undefined {
  const current = generations.get(task.plugin);
  return current &&
    current.hash === task.hash &&
    current.memoryMb === task.memoryMb &&
    !current.retired &&
    !current.dead
    ? current
    : undefined;
}

export function generationFor(task: CallTask, code: string): Generation {
  const live = liveGeneration(task);
  if (live) return live;
  const current = generations.get(task.plugin);
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

export type Heap = { used: number; limit: number; held: number };

/**
 * Bytes a heap can grow per nanosecond of its isolate's CPU: far above what any allocation reaches, since V8
 * initialises every object it allocates (measured: at most 2.7 for flat strings and filled arrays; 33 for
 * ArrayBuffers, which isolated-vm's allocator caps by itself).
 */
const MAX_HEAP_GROWTH_PER_CPU_NS = 64;

/** The isolate's heap right now, read only while no entry runs in it (the read then cannot wait on plugin code). */
export function heapNow(gen: Generation): Heap | undefined {
  if (gen.running !== 0 || gen.dead) return undefined;
  try {
    const cpu = gen.isolate.cpuTime;
    const h = gen.isolate.getHeapStatisticsSync();
    gen.heapSeen = { used: h.used_heap_size, limit: h.heap_size_limit, cpu };
    return { used: h.used_heap_size, limit: h.heap_size_limit, held: h.total_heap_size + h.externally_allocated_size };
  } catch {
    return undefined;
  }
}

/**
 * True when the heap cannot be past its limit: the last read's use, plus the most the isolate could have allocated
 * in the CPU time it has spent since, is under the limit. Reading the heap takes the isolate's lock (~2 µs, more
 * under load); this reads one counter, so a call that allocates little is checked without it.
 */
export function heapWithinLimit(gen: Generation): boolean {
  const seen = gen.heapSeen;
  if (!seen || gen.running !== 0 || gen.dead) return false;
  try {
    return seen.used + Number(gen.isolate.cpuTime - seen.cpu) * MAX_HEAP_GROWTH_PER_CPU_NS < seen.limit;
  } catch {
    return false;
  }
}

/**
 * Puts a context back for the next call of this plugin, or lets it go. A call that failed or could not leave its
 * context idle may leave a heap full of garbage (a 50 MB result refused, buffers it reserved); V8 keeps those pages
 * while the isolate sits idle. Such an isolate is retired, so the runtime's memory returns to its baseline.
 */
export function afterCall(
  gen: Generation,
  slot: Slot,
  reusable: boolean,
  failed: boolean,
  heap: Heap | undefined,
): void {
  slot.owner = null;
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
  // Kept up to the calls a worker runs at once: a lower cap made contexts churn under load (measured with 2: each call
  // past it built a context, 6x the CPU per call, and the released ones piled up uncollected).
  if (reusable && data.contextMode === 'warm' && !gen.dead && !gen.retired && gen.free.length < data.concurrency)
    gen.free.push(slot);
  else releaseSlot(slot);
}
