// The raw sandbox floor: calls into a warm isolated-vm context, no pool, no IPC, no HTTP.
// Must run with --no-node-snapshot (isolated-vm's requirement); bench/run.ts starts it so.
import ivm from 'isolated-vm';

const iterations = Number(process.argv[2] ?? 20000);
const isolate = new ivm.Isolate({ memoryLimit: 64 });
const context = isolate.createContextSync();
context.evalSync('globalThis.handler = async (input) => JSON.stringify({ ok: true, data: JSON.parse(input).params })');
const handler = context.global.getSync('handler', { reference: true }) as ivm.Reference<(s: string) => Promise<string>>;
const input = JSON.stringify({ params: { hello: 'world' } });

async function run(n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await handler.apply(undefined, [input], { arguments: { copy: true }, result: { promise: true, copy: true } });
    times.push(performance.now() - t0);
  }
  return times;
}

await run(Math.min(2000, iterations));
const t0 = performance.now();
const times = (await run(iterations)).sort((a, b) => a - b);
const seconds = (performance.now() - t0) / 1000;
process.stdout.write(
  JSON.stringify({
    label: 'sandbox floor (warm context, 1 in flight)',
    requests: iterations,
    errors: 0,
    seconds,
    rps: iterations / seconds,
    p50: times[Math.floor(times.length / 2)],
    p99: times[Math.floor(times.length * 0.99)],
    max: times[times.length - 1],
  }) + '\n',
);
context.release();
isolate.dispose();
