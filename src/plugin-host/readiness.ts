// Whether the runtime serves: up from its process's 'ready' until that process is gone, healthy while its health
// reports keep coming with at least one worker answering.

/** Health reports come every second; this long without one means the runtime's main thread is stuck. */
const HEALTH_STALE_MS = 3_000;

export interface Readiness {
  readonly up: boolean;
  /** When the runtime last became ready (epoch ms; 0: never). */
  readonly readyAt: number;
  /** 'ready': the runtime serves (whenReady() callers go on); its `threads` workers count as answering until its first health report. */
  ready(threads: number): void;
  /** The serving process is gone. */
  down(): void;
  /** 'health': how many workers answer the watchdog's pings. */
  health(responsive: number): void;
  /** Resolves once the runtime is up. */
  whenReady(): Promise<void>;
  /** Resolves at the next 'ready', even while `up` still holds for a process that is gone but not yet handled. */
  nextReady(): Promise<void>;
  /** A health report came within HEALTH_STALE_MS, with at least one worker answering. */
  fresh(): boolean;
}

export function createReadiness(): Readiness {
  let up = false;
  let readyAt = 0;
  let health = { at: 0, responsive: 0 };
  let waiters: Array<() => void> = [];
  const nextReady = () => new Promise<void>((resolve) => waiters.push(resolve));
  return {
    get up() {
      return up;
    },
    get readyAt() {
      return readyAt;
    },
    ready(threads) {
      up = true;
      readyAt = Date.now();
      health = { at: readyAt, responsive: threads };
      for (const w of waiters) w();
      waiters = [];
    },
    down() {
      up = false;
    },
    health(responsive) {
      health = { at: Date.now(), responsive };
    },
    whenReady() {
      return up ? Promise.resolve() : nextReady();
    },
    nextReady,
    fresh: () => Date.now() - health.at < HEALTH_STALE_MS && health.responsive > 0,
  };
}
