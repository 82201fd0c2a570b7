// The design's own floor: the path of a plugin call with nothing else on it. An express 5 route with express.json()
// sends the call over a fork IPC channel (advanced serialization, as the service) to a runtime process, which runs it
// on a Piscina pool of 2 threads (atomics disabled, as runtime/process/pool.ts); each worker keeps one warm
// isolated-vm context and calls the handler with applySync on a JSON string, and the answer comes back the same way.
// Prints {"port": n} once listening. Alone: `node --no-node-snapshot bench/floors/pipeline-floor.ts`.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import express from 'express';

async function runtime(): Promise<void> {
  const { Piscina } = await import('piscina');
  const pool = new Piscina({
    filename: new URL('./pipeline-worker.cjs', import.meta.url).href,
    minThreads: 2,
    maxThreads: 2,
    atomics: 'disabled',
    idleTimeout: 2 ** 30,
    recordTiming: false,
    concurrentTasksPerWorker: 32,
  });
  // A task still running when the HTTP side goes is dropped with the pool (no answer is waited for then).
  process.on(
    'message',
    (msg: { id: number; input: string }) =>
      void pool.run(msg.input).then(
        (output: string) => process.connected && process.send!({ id: msg.id, output }),
        () => {},
      ),
  );
  process.on('disconnect', () => void pool.destroy().finally(() => process.exit(0)));
  process.send!('ready');
}

async function http(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['runtime'], {
    serialization: 'advanced',
    execArgv: ['--no-node-snapshot'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise((ready) => child.once('message', ready));
  const waiting = new Map<number, (output: string) => void>();
  let next = 0;
  child.on('message', (msg: { id: number; output: string }) => {
    waiting.get(msg.id)?.(msg.output);
    waiting.delete(msg.id);
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json());
  app.post('/echo', (req, res) => {
    const id = next++;
    waiting.set(id, (output) => res.type('json').send(output));
    child.send({ id, input: JSON.stringify(req.body) });
  });
  const server = app.listen(0, '127.0.0.1', () =>
    process.stdout.write(JSON.stringify({ port: (server.address() as { port: number }).port }) + '\n'),
  );
  process.on('SIGTERM', () => server.close(() => child.disconnect()));
  child.on('exit', () => process.exit(0));
}

if (process.argv[2] === 'runtime') await runtime();
else await http();
