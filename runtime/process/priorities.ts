// CPU priority of plugin code (runtime main thread, Linux). Plugin code runs on isolated-vm's own threads, never on
// the event loops that route calls (the main thread, the Piscina workers). Those isolate threads are lowered to
// nice 10, so that plugins burning CPU within their timeouts take only the CPU the routing threads leave: another
// plugin's call still gets through at once, and its own short isolate work competes only with plugin threads.
// isolated-vm creates its threads on demand (they inherit the name "WorkerThread" from the worker that made them):
// they are found by a periodic scan of /proc/self/task, minus the Piscina workers, which report their thread ids.
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

const PLUGIN_THREAD_NICE = 10;
/** A thread this young may be a Piscina worker that has not reported its id yet. */
const MIN_AGE_SECONDS = 5;
const CLOCK_TICKS = 100;

export function createPriorities(): { eventLoop(tid: number): void; scan(): void } {
  const eventLoops = new Set<number>([process.pid]);
  const lowered = new Set<number>();
  let broken = process.platform !== 'linux';

  return {
    eventLoop(tid) {
      eventLoops.add(tid);
    },
    scan() {
      if (broken) return;
      try {
        const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
        const live = new Set<number>();
        for (const name of readdirSync('/proc/self/task')) {
          const tid = Number(name);
          live.add(tid);
          if (eventLoops.has(tid) || lowered.has(tid)) continue;
          const stat = readFileSync(`/proc/self/task/${name}/stat`, 'utf8');
          const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          if (comm !== 'WorkerThread') continue;
          const started = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]) / CLOCK_TICKS;
          if (uptime - started < MIN_AGE_SECONDS) continue;
          setPriority(tid, PLUGIN_THREAD_NICE);
          lowered.add(tid);
        }
        for (const tid of lowered) if (!live.has(tid)) lowered.delete(tid);
        for (const tid of eventLoops) if (!live.has(tid)) eventLoops.delete(tid);
      } catch {
        // no /proc or no permission: priorities are an optimization
        broken = true;
      }
    },
  };
}
