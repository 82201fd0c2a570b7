// The crossings floor: what one plugin call's process and thread crossings cost with nothing else on the way. This
// process sends a small call message over a fork IPC channel (advanced serialization, as the service does) to a
// child, which hands it to a Piscina worker thread (one thread, atomics disabled, as runtime/process/pool.ts) and
// sends the answer back: the four wakeups of a call, without HTTP, express, the scheduler or an isolate.
// Alone: `node bench/floors/crossings-floor.ts [round trips]` prints one JSON line.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

async function child(): Promise<void> {
  const { Piscina } = await import('piscina');
  const pool = new Piscina({ filename: new URL('./crossings-worker.cjs', import.meta.url).href, minThreads: 1, maxThreads: 1, atomics: 'disabled', idleTimeout: 2 ** 30, recordTiming: false });
  process.on('message', (msg) => void pool.run(msg).then((answer) => process.send!(answer)));
  process.on('disconnect', () => void pool.destroy().finally(() => process.exit(0)));
  process.send!('ready');
}

async function parent(count: number): Promise<void> {
  const proc = fork(SELF, ['child'], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await once(proc, 'message');
  const msg = { t: 'call', id: 0, plugin: 'echo', input: JSON.stringify({ params: { hello: 'world', n: 1 } }) };
  const roundTrip = async () => {
    const t0 = performance.now();
    const answered = once(proc, 'message');
    proc.send(msg);
    await answered;
    return performance.now() - t0;
  };
  for (let i = 0; i < 500; i++) await roundTrip();
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < count; i++) times.push(await roundTrip());
  const seconds = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  proc.disconnect();
  process.stdout.write(JSON.stringify({ requests: count, errors: 0, seconds, rps: count / seconds, p50: times[Math.floor(count / 2)], p99: times[Math.floor(count * 0.99)], max: times[count - 1] }) + '\n');
}

if (process.argv[2] === 'child') await child();
else await parent(Number(process.argv[2] ?? 5000));
