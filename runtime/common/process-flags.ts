// Room: runtime/common (code both sides of runtime/protocol.ts share; see README.md here). How the runtime process
// and its worker threads are started: the HTTP process forks with these, the pool sizes its workers with them.

/**
 * How the runtime process must be started. Measured under the soak's traffic, each V8 thread otherwise grows its
 * young generation to 64 MiB semi-spaces and glibc gives every isolated-vm thread its own malloc arena: runtime RSS
 * climbed past 550 MiB (kv traffic) instead of settling near 270 MiB, with no loss of throughput from the limits.
 */
export const RUNTIME_PROCESS = {
  // isolated-vm needs --no-node-snapshot on the process command line; it cannot go in a Worker's execArgv.
  execArgv: ['--no-node-snapshot', '--max-semi-space-size=2'],
  // A fixed mmap threshold: large blocks are always mapped, so they return to the system when freed, and the
  // sandbox's memory "ballasts" (runtime/isolate/prelude/guards.ts), calloc'ed and never touched, cost no resident memory.
  env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
} as const;
/** Young generation of each sandbox worker thread (Piscina `resourceLimits`); worker threads ignore the flag above. */
export const WORKER_YOUNG_GENERATION_MB = 6;
