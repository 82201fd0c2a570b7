// Liveness of the sandbox workers (runtime main thread). Every worker is pinged twice a second and must answer from
// its event loop; one that stays silent for STALL_MS is counted, terminated and replaced by Piscina (its calls answer
// 503 + Retry-After). If it cannot even be terminated (a thread stuck in native code), the runtime process exits
// and the HTTP process restarts it. Health (workers, responsive) is reported every second for /api/v1/ready.

export interface WatchedWorker {
  threadId: number;
  terminate(): Promise<number>;
}

export interface WatchdogDeps {
  workers(): WatchedWorker[];
  ping(threadId: number, seq: number): void;
  stalled(threadId: number): void;
  health(workers: number, responsive: number): void;
  /** Last resort: a stalled worker survived termination. */
  exit(): void;
}

const PING_MS = 500;
/** Readiness counts a worker as serving only if it answered within this; replacement waits for STALL_MS. */
const RESPONSIVE_MS = 1500;
const STALL_MS = 3000;
/** A new worker loads isolated-vm and our modules before it can answer; give it longer before the first pong. */
const STARTUP_GRACE_MS = 15_000;
const TERMINATE_GRACE_MS = 5000;

export function createWatchdog(deps: WatchdogDeps): { pong(threadId: number): void; close(): void } {
  const lastPong = new Map<number, number>();
  const firstSeen = new Map<number, number>();
  const terminating = new Set<number>();
  let seq = 0;
  let lastHealth = 0;

  const silentFor = (id: number, now: number) => {
    const pong = lastPong.get(id);
    return pong === undefined ? now - firstSeen.get(id)! - (STARTUP_GRACE_MS - STALL_MS) : now - pong;
  };

  const timer = setInterval(() => {
    const now = Date.now();
    const workers = deps.workers();
    const live = new Set(workers.map((w) => w.threadId));
    for (const id of firstSeen.keys()) {
      if (!live.has(id)) {
        firstSeen.delete(id);
        lastPong.delete(id);
        terminating.delete(id);
      }
    }
    let responsive = 0;
    for (const w of workers) {
      if (!firstSeen.has(w.threadId)) firstSeen.set(w.threadId, now);
      deps.ping(w.threadId, ++seq);
      const silent = silentFor(w.threadId, now);
      if (silent <= RESPONSIVE_MS && !terminating.has(w.threadId)) responsive++;
      if (silent <= STALL_MS) continue;
      if (terminating.has(w.threadId)) continue;
      terminating.add(w.threadId);
      deps.stalled(w.threadId);
      w.terminate().catch(() => {});
      setTimeout(() => {
        if (deps.workers().some((x) => x.threadId === w.threadId)) deps.exit();
      }, TERMINATE_GRACE_MS).unref();
    }
    if (now - lastHealth >= 1000) {
      lastHealth = now;
      deps.health(workers.length, responsive);
    }
  }, PING_MS);
  timer.unref();

  return {
    pong(threadId) {
      lastPong.set(threadId, Date.now());
    },
    close: () => clearInterval(timer),
  };
}
