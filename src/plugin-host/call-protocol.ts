// The calls to a runtime process and its calls back, over IPC: request ids, the calls waiting for their answer (each
// answer checked by answer-check.ts), one host-call session per process, and sends batched per event-loop turn.
// It also knows whether a waiting call may have had host calls run for it: only one that cannot is ever replayed.
import type { ChildProcess } from 'node:child_process';
import type { PluginCallInput, PluginCallResult } from '../domain/plugins/ports.ts';
import { createBatcher } from '../../runtime/common/batcher.ts';
import type { CallInput, ChildMessage, ParentMessage } from '../../runtime/protocol.ts';
import { outcomeOf } from './answer-check.ts';
import { pluginCallChannel } from './diagnostics.ts';
import type { HostCallSession } from './host-calls.ts';

/** What a runtime process reports about itself rather than about one call: the supervisor's business. */
export type StatusMessage = Exclude<ChildMessage, { t: 'batch' | 'result' | 'host-call' | 'host-cancel' }>;

/** One runtime process's end of the protocol. */
export interface Channel {
  receive(msg: ChildMessage): void;
  /** The process is gone: cancels its host calls still running. */
  close(): void;
}

export interface CallProtocol {
  /** Wires a runtime process: its answers settle calls, its host calls run in a session of its own, the rest goes to `onStatus`. */
  open(proc: ChildProcess, onStatus: (msg: StatusMessage) => void): Channel;
  /** Sends one plugin call to `proc`; settles with its checked answer, or by rejectCalls when the process goes. */
  call(proc: ChildProcess, pluginId: string, input: PluginCallInput): Promise<PluginCallResult>;
  /** Fails the calls still waiting on `proc` (every call when undefined). */
  rejectCalls(proc: ChildProcess | undefined, errorFor: (id: number, call: GoneCall) => Error): void;
  /** Sends at once, if `target` is still connected (init, prepare, configure, shutdown). */
  send(target: ChildProcess, msg: ParentMessage): void;
  /** Host calls (api/kv) running now on behalf of plugin calls. */
  hostCallsInFlight(): number;
}

/** A call still waiting when its runtime process went. */
export interface GoneCall {
  plugin: string;
  /**
   * A host call (api/kv) of this plugin reached us from that process while the call waited: it may be the call's
   * own, and may have sent a transaction. Counted per plugin, so a false "yes" is possible and a false "no" is not.
   */
  hostCalls: boolean;
}

interface Pending {
  child: ChildProcess;
  plugin: string;
  /** The count of host calls of `plugin` from `child` when this call was sent. */
  hostCallsAtSend: number;
  resolve(result: PluginCallResult): void;
  reject(err: Error): void;
}

export function createCallProtocol(deps: {
  /** A fresh session for a new runtime process's host calls. */
  hostCalls(): HostCallSession;
  /** Told the count of calls handed to the runtime and not answered yet, at every change. */
  observer: { inFlight(count: number): void };
}): CallProtocol {
  const { observer } = deps;
  const pending = new Map<number, Pending>();
  const sessions = new Set<HostCallSession>();
  /** Host calls received so far, per runtime process and plugin. */
  const hostCallCounts = new WeakMap<ChildProcess, Map<string, number>>();
  const hostCallsOf = (proc: ChildProcess, plugin: string) => hostCallCounts.get(proc)?.get(plugin) ?? 0;
  let nextId = 0;

  function send(target: ChildProcess, msg: ParentMessage): void {
    if (target.connected) target.send(msg);
  }
  /** Batched sends to the current child (calls, host replies): one IPC write per event-loop turn. */
  let batched: { child: ChildProcess; send: (msg: ParentMessage) => void } | undefined;
  function sendBatched(target: ChildProcess, msg: ParentMessage): void {
    if (batched?.child !== target)
      batched = { child: target, send: createBatcher<ParentMessage>((m) => send(target, m)) };
    batched.send(msg);
  }

  function settle(msg: Extract<ChildMessage, { t: 'result' }>): void {
    const call = pending.get(msg.id);
    if (!call) return;
    pending.delete(msg.id);
    observer.inFlight(pending.size);
    const outcome = outcomeOf(call.plugin, msg);
    if (outcome instanceof Error) call.reject(outcome);
    else call.resolve(outcome);
  }

  function open(proc: ChildProcess, onStatus: (msg: StatusMessage) => void): Channel {
    const session = deps.hostCalls();
    sessions.add(session);
    const counts = new Map<string, number>();
    hostCallCounts.set(proc, counts);
    let closed = false;
    const receive = (msg: ChildMessage): void => {
      switch (msg.t) {
        case 'batch':
          for (const m of msg.msgs) receive(m);
          return;
        case 'result':
          settle(msg);
          return;
        case 'host-call':
          // Late, from a process already gone: never run. So a host call either ran and was counted before the
          // process's calls were settled (replay or not), or never ran at all.
          if (closed) return;
          counts.set(msg.plugin, (counts.get(msg.plugin) ?? 0) + 1);
          session.run(msg).then((reply) => {
            if (reply !== undefined) sendBatched(proc, { t: 'host-reply', id: msg.id, reply });
          });
          return;
        case 'host-cancel':
          session.cancel(msg.id);
          return;
        default:
          onStatus(msg);
      }
    };
    const close = () => {
      closed = true;
      session.close();
      sessions.delete(session);
    };
    return { receive, close };
  }

  function call(proc: ChildProcess, pluginId: string, input: PluginCallInput): Promise<PluginCallResult> {
    const id = ++nextId;
    return new Promise<PluginCallResult>((resolve, reject) => {
      pending.set(id, { child: proc, plugin: pluginId, hostCallsAtSend: hostCallsOf(proc, pluginId), resolve, reject });
      observer.inFlight(pending.size);
      sendBatched(proc, {
        t: 'call',
        id,
        plugin: pluginId,
        method: input.method,
        requestId: input.requestId,
        input: JSON.stringify(input satisfies CallInput),
      });
    });
  }

  return {
    open,
    // Traced only for a subscriber (bench/hop-probe.ts): otherwise no context is made.
    call: (proc, pluginId, input) =>
      pluginCallChannel.hasSubscribers
        ? pluginCallChannel.tracePromise(
            call,
            { plugin: pluginId, requestId: input.requestId },
            undefined,
            proc,
            pluginId,
            input,
          )
        : call(proc, pluginId, input),
    rejectCalls(proc, errorFor) {
      for (const [id, call] of pending) {
        if (proc && call.child !== proc) continue;
        pending.delete(id);
        call.reject(
          errorFor(id, { plugin: call.plugin, hostCalls: hostCallsOf(call.child, call.plugin) > call.hostCallsAtSend }),
        );
      }
      observer.inFlight(pending.size);
    },
    send,
    hostCallsInFlight: () => [...sessions].reduce((n, x) => n + x.running, 0),
  };
}
