// Fair admission of plugin calls to the pool (runtime main thread). Each plugin may run at most its
// `max_concurrent_calls` at once and keep at most `max_queued_calls` waiting; the pool's slots (threads x
// concurrency) are handed out round-robin between the plugins that have calls waiting, so one plugin's backlog
// never sits in front of another plugin's call. A queued call's deadline keeps running while it waits.

export interface PluginCaps {
  maxConcurrent: number;
  maxQueued: number;
}

export interface Job {
  /** Starts the call; resolves when it has answered (its slot is then free). */
  run(): Promise<unknown>;
  /** The call's deadline passed while it was still waiting. */
  expire(): void;
  /** Epoch ms. */
  deadline: number;
}

export type Admission = 'admitted' | 'plugin-busy' | 'runtime-busy';

export interface Scheduler {
  submit(plugin: string, caps: PluginCaps, job: Job): Admission;
  /** Calls running and waiting now. */
  stats(): { running: number; queued: number };
}

interface Waiting {
  job: Job;
  timer: NodeJS.Timeout;
}

interface PluginQueue {
  caps: PluginCaps;
  running: number;
  waiting: Waiting[];
}

export function createScheduler(options: { capacity: number; maxQueue: number }): Scheduler {
  const plugins = new Map<string, PluginQueue>();
  /** Plugins with calls waiting, in the order they get the next free slot. */
  const turn: string[] = [];
  let running = 0;
  let queued = 0;

  function start(plugin: string, q: PluginQueue, job: Job): void {
    running++;
    q.running++;
    const finished = () => {
      running--;
      q.running--;
      if (q.running === 0 && q.waiting.length === 0) plugins.delete(plugin);
      drain();
    };
    job.run().then(finished, finished);
  }

  /** Hands free slots to waiting calls, one plugin at a time in turn. */
  function drain(): void {
    let idle = 0;
    while (running < options.capacity && turn.length > 0 && idle < turn.length) {
      const plugin = turn.shift()!;
      const q = plugins.get(plugin);
      if (!q || q.waiting.length === 0) continue;
      if (q.running >= q.caps.maxConcurrent) {
        turn.push(plugin);
        idle++;
        continue;
      }
      idle = 0;
      const next = q.waiting.shift()!;
      queued--;
      clearTimeout(next.timer);
      if (q.waiting.length > 0) turn.push(plugin);
      start(plugin, q, next.job);
    }
  }

  return {
    submit(plugin, caps, job) {
      let q = plugins.get(plugin);
      if (!q) {
        q = { caps, running: 0, waiting: [] };
        plugins.set(plugin, q);
      }
      q.caps = caps;
      if (running < options.capacity && q.running < caps.maxConcurrent && q.waiting.length === 0) {
        start(plugin, q, job);
        return 'admitted';
      }
      const cleanup = () => {
        if (q.running === 0 && q.waiting.length === 0) plugins.delete(plugin);
      };
      if (queued >= options.maxQueue) {
        cleanup();
        return 'runtime-busy';
      }
      if (q.waiting.length >= caps.maxQueued) {
        cleanup();
        return 'plugin-busy';
      }
      const entry: Waiting = {
        job,
        timer: setTimeout(
          () => {
            const at = q.waiting.indexOf(entry);
            if (at < 0) return;
            q.waiting.splice(at, 1);
            queued--;
            cleanup();
            job.expire();
          },
          Math.max(0, job.deadline - Date.now()),
        ),
      };
      q.waiting.push(entry);
      queued++;
      if (q.waiting.length === 1) turn.push(plugin);
      return 'admitted';
    },
    stats: () => ({ running, queued }),
  };
}
