// Room: runtime/common (see README.md here). The runtime's diagnostics channels (node:diagnostics_channel): each traces
// one stretch of a plugin call, on the thread that runs it, for whoever subscribes (bench/hop-probe.ts). With no
// subscriber a call checks `hasSubscribers` and builds nothing. Each context names the call by `requestId`.
import { tracingChannel } from 'node:diagnostics_channel';

/** A plugin call as the runtime's threads name it: the HTTP process's call id, the plugin, the client's request id. */
export interface RuntimeCallContext {
  id: number;
  plugin: string;
  requestId: string;
}

/**
 * Runtime main thread: a 'call' message until its result is sent. `start` as it arrives, `asyncEnd` once its result
 * (or refusal) is sent.
 */
export const runtimeCallChannel = tracingChannel<unknown, RuntimeCallContext>('relaybox:runtime:call');

/** Runtime main thread: the call's Piscina task, from the main thread's side (tracePromise). */
export const poolTaskChannel = tracingChannel<unknown, RuntimeCallContext>('relaybox:runtime:pool-task');

/** Worker thread: the call's task inside the worker (tracePromise). */
export const workerTaskChannel = tracingChannel<unknown, RuntimeCallContext>('relaybox:runtime:worker-task');

/** Worker thread: the call in its isolate, `start` at the first entry, `asyncEnd` when the call has its answer. */
export const isolateCallChannel = tracingChannel<unknown, RuntimeCallContext>('relaybox:runtime:isolate-call');
