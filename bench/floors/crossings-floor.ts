// The crossings floor: what one plugin call's process and thread crossings cost with nothing else on the way. This
// process sends a small call message over a fork IPC channel (advanced serialization, as the service does) to a
// child, which hands it to a Piscina worker thread (one thread, atomics disabled, as runtime/process/pool.ts) and
// sends the answer back: the four wakeups of a call, without HTTP, express, the scheduler or an isolate.
// With `inflight` above 1 the messages overlap as 64 connections' calls do, and the CPU of both processes per round
// trip is what the crossings add to a call under load (the other floor, bare express, is HTTP's).
// Alone: `node bench/floors/crossings-floor.ts [round trips] [in flight]` prints one JSON line.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { treeCpuSeconds } from '../service.ts';

const SELF = fileURLToPath(import.meta.url);

async function child(): Promise<void> {
  const { Piscina } = await import('piscina');
  const pool = new Piscina({
    filename: new URL('./crossings-worker.cjs', import.meta.url).href,
    minThreads: 1,
    maxThreads: 1,
    atomics: 'disabled',
    idleTimeout: 2 ** 30,
    recordTiming: false,
    concurrentTasksPerWorker: 64,
  });
  process.on('message', (msg) => void pool.run(msg).then((answer) => process.send!(answer)));
  process.on('disconnect', () => void pool.destroy().finally(() => process.exit(0)));
  process.send!('ready');
}

async function parent(count: number, inflight: number): Promise<void> {
  const proc = fork(SELF, ['child'], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await once(proc, 'message');
  const msg = { t: 'call', id: 0, plugin: 'echo', input: JSON.stringify({ params: { hello: 'world', n: 1 } }) };
  // Answers come back in order (one worker): each settles the oldest call still waiting.
  const waiting: Array<{ t0: number; done: (ms: number) => void }> = [];
  proc.on('message', () => {
    const call = waiting.shift();
    call?.done(performance.now() - call.t0);
  });
  const roundTrip = () =>
    new Promise<number>((done) => {
      waiting.push({ t0: performance.now(), done });
      proc.send(msg);
    });
  const run = async (n: number, times: number[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: inflight }, async () => {
        while (next++ < n) times.push(await roundTrip());
      }),
    );
  };
  await run(500, []);
  const times: number[] = [];
  // This process and the one it forked.
  const cpu0 = treeCpuSeconds(process.pid);
  const t0 = performance.now();
  await run(count, times);
  const seconds = (performance.now() - t0) / 1000;
  const cpuUsPerCall = ((treeCpuSeconds(process.pid) - cpu0) * 1e6) / count;
  times.sort((a, b) => a - b);
  proc.disconnect();
  process.stdout.write(
    JSON.stringify({
      requests: count,
      errors: 0,
      seconds,
      rps: count / seconds,
      p50: times[Math.floor(count / 2)],
      p99: times[Math.floor(count * 0.99)],
      max: times[count - 1],
      cpuUsPerCall,
    }) + '\n',
  );
}

if (process.argv[2] === 'child') await child();
else await parent(Number(process.argv[2] ?? 5000), Number(process.argv[3] ?? 1));
