// The bench's probe of a plugin call's hops: a preload (`--import`) that subscribes to the service's diagnostics
// channels on each thread a call crosses and writes what it measured, per request id, to files the bench joins
// (bench/plugin-path.ts, hopBreakdown). The service has no switch for it: a channel nobody subscribes to costs nothing.
//   HTTP process (NODE_OPTIONS=--import=<this>?out=<dir>, set by the bench): node:http's request start, the plugin
//     route, the call to the runtime process; and it adds itself to the runtime process's Node options (runtimeForkChannel).
//   runtime process main thread: the call's stay there, its Piscina task.
//   worker threads (they inherit the runtime process's options, this preload included): the task, the isolate's part.
// Each side measures only its own clock (performance.now() differences), so no clocks are compared across processes.
import { subscribe, type TracingChannel } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';
import type { RuntimeForkMessage } from '../src/plugin-host/diagnostics.ts';

const SELF = import.meta.url;
const OUT = new URL(SELF).searchParams.get('out');

/** One thread's measures of one call, in ms: the bench sums each request id's records over the threads. */
export type HopRecord = { requestId: string } & Partial<
  Record<'mw' | 'route' | 'call' | 'main' | 'pool' | 'worker' | 'isolate', number>
>;

let buffered: string[] = [];
function flush(): void {
  if (!OUT || buffered.length === 0) return;
  const lines = buffered.join('');
  buffered = [];
  appendFileSync(path.join(OUT, `${process.pid}-${threadId}.jsonl`), lines);
}
function record(r: HopRecord): void {
  buffered.push(JSON.stringify(r) + '\n');
}

const noop = () => {};
type Measure = keyof Omit<HopRecord, 'requestId'>;
/** The time from a traced operation's start to its asyncEnd, recorded as `key` under the context's request id. */
function measure<C extends object>(
  channel: TracingChannel<unknown, C>,
  key: Measure,
  requestIdOf: (ctx: C) => string,
  onStart?: (ctx: C, at: number) => void,
): void {
  const started = new WeakMap<object, number>();
  channel.subscribe({
    start: (ctx) => {
      const at = performance.now();
      started.set(ctx, at);
      onStart?.(ctx, at);
    },
    asyncEnd: (ctx) => {
      const at = started.get(ctx);
      if (at === undefined) return;
      const r: HopRecord = { requestId: requestIdOf(ctx) };
      r[key] = performance.now() - at;
      record(r);
    },
    end: noop,
    asyncStart: noop,
    error: noop,
  });
}

const byRequestId = (ctx: { requestId: string }) => ctx.requestId;

async function httpProcess(): Promise<void> {
  const { pluginRouteChannel } = await import('../src/api/plugins/diagnostics.ts');
  const { pluginCallChannel, runtimeForkChannel } = await import('../src/plugin-host/diagnostics.ts');
  // node:http's own channel: the request's start, before express and its middleware.
  const arrived = new WeakMap<object, number>();
  subscribe('http.server.request.start', (msg) => arrived.set((msg as { request: object }).request, performance.now()));
  const routeRequestId = (ctx: { res: { locals: Record<string, unknown> } }) => String(ctx.res.locals.requestId ?? '');
  measure(pluginRouteChannel, 'route', routeRequestId, (ctx, at) => {
    const from = arrived.get(ctx.req);
    if (from !== undefined) record({ requestId: routeRequestId(ctx), mw: at - from });
  });
  measure(pluginCallChannel, 'call', byRequestId);
  // The runtime process, and so its workers, run this probe too.
  runtimeForkChannel.subscribe((msg) => (msg as RuntimeForkMessage).execArgv.push(`--import=${SELF}`));
}

async function runtimeMainThread(): Promise<void> {
  const { runtimeCallChannel, poolTaskChannel } = await import('../runtime/common/diagnostics.ts');
  measure(runtimeCallChannel, 'main', byRequestId);
  measure(poolTaskChannel, 'pool', byRequestId);
}

async function workerThread(): Promise<void> {
  const { workerTaskChannel, isolateCallChannel } = await import('../runtime/common/diagnostics.ts');
  measure(workerTaskChannel, 'worker', byRequestId);
  measure(isolateCallChannel, 'isolate', byRequestId);
}

const entry = process.argv[1] ?? '';
const role = !isMainThread
  ? workerThread
  : entry.endsWith(path.join('src', 'main.ts'))
    ? httpProcess
    : entry.endsWith(path.join('runtime', 'process', 'server.ts'))
      ? runtimeMainThread
      : undefined;
if (OUT && role) {
  await role();
  // Written between calls, not in them: a call's records wait in memory for the next tick of this timer.
  setInterval(flush, 200).unref();
  process.on('exit', flush);
}
