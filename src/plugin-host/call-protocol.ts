// The calls to a runtime process and its calls back, over IPC: request ids, the calls waiting for their answer (each
// answer checked by answer-check.ts), one host-call session per process, and sends batched per event-loop turn.
import type { ChildProcess } from 'node:child_process';
import type { PluginCallInput, PluginCallResult } from '../domain/plugins/ports.ts';
import { createBatcher, type CallInput, type ChildMessage, type ParentMessage } from '../../runtime/protocol.ts';
import { outcomeOf } from './answer-check.ts';
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
  rejectCalls(proc: ChildProcess | undefined, errorFor: (id: number) => Error): void;
  /** Sends at once, if `target` is still connected (init, prepare, configure, shutdown). */
  send(target: ChildProcess, msg: ParentMessage): void;
  /** Host calls (api/kv) running now on behalf of plugin calls. */
  hostCallsInFlight(): number;
}

interface Pending {
  child: ChildProcess;
  plugin: string;
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
  let nextId = 0;

  function send(target: ChildProcess, msg: ParentMessage): void {
    if (target.connected) target.send(msg);
  }
  /** Batched sends to the current child (calls, host replies): one IPC write per event-loop turn. */
  let batched: { child: ChildProcess; send: (msg: ParentMessage) => void } | undefined;
  function sendBatched(target: ChildProcess, msg: ParentMessage): void {
    if (batched?.child !== target) batched = { child: target, send: createBatcher<ParentMessage>((m) => send(target, m)) };
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
    const receive = (msg: ChildMessage): void => {
      switch (msg.t) {
        case 'batch':
          for (const m of msg.msgs) receive(m);
          return;
        case 'result':
          settle(msg);
          return;
        case 'host-call':
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
      session.close();
      sessions.delete(session);
    };
    return { receive, close };
  }

  return {
    open,
    call(proc, pluginId, input) {
      const id = ++nextId;
      return new Promise<PluginCallResult>((resolve, reject) => {
        pending.set(id, { child: proc, plugin: pluginId, resolve, reject });
        observer.inFlight(pending.size);
        sendBatched(proc, { t: 'call', id, plugin: pluginId, method: input.method, requestId: input.requestId, input: JSON.stringify(input satisfies CallInput) });
      });
    },
    rejectCalls(proc, errorFor) {
      for (const [id, call] of pending) {
        if (proc && call.child !== proc) continue;
        pending.delete(id);
        call.reject(errorFor(id));
      }
      observer.inFlight(pending.size);
    },
    send,
    hostCallsInFlight: () => [...sessions].reduce((n, x) => n + x.running, 0),
  };
}
