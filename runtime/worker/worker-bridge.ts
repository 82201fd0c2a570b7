// A worker's line to the runtime main thread: host requests and their replies, plugin code by hash, cancellation
// of requests whose call ended, and answers to the watchdog's pings (runtime/process/watchdog.ts).
import { readlinkSync } from 'node:fs';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { HOST_CHANNEL, REPLY_CHANNEL, type WorkerHostReply, type WorkerHostRequest } from '../protocol.ts';

const MAX_CODE_CACHE = 128;

const toMain = new BroadcastChannel(HOST_CHANNEL);
const fromMain = new BroadcastChannel(REPLY_CHANNEL + threadId);
const waiting = new Map<number, (reply: string) => void>();
const codeCache = new Map<string, string>();
let nextRequest = 0;
/** This thread's OS id: /proc/thread-self is a link to "<pid>/task/<tid>" of the thread that reads it. */
const tid = (() => {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return 0;
  }
})();

fromMain.onmessage = (event) => {
  const msg = (event as unknown as { data: WorkerHostReply }).data;
  if ('ping' in msg) {
    toMain.postMessage({ t: 'pong', worker: threadId, seq: msg.ping, tid } satisfies WorkerHostRequest);
    return;
  }
  const resolve = waiting.get(msg.id);
  if (resolve) {
    waiting.delete(msg.id);
    resolve(msg.reply);
  }
};
toMain.unref();
fromMain.unref();
// Said at once, before any task can keep this thread busy: from now on the watchdog holds it to the normal delay.
toMain.postMessage({ t: 'pong', worker: threadId, seq: 0, tid } satisfies WorkerHostRequest);

type Request = WorkerHostRequest extends infer R
  ? R extends { t: 'host' | 'code' }
    ? Omit<R, 'worker' | 'id'>
    : never
  : never;

/** Sends a request to the main thread; `id` names it for `cancelRequests`. */
export function ask(msg: Request): { id: number; reply: Promise<string> } {
  const id = ++nextRequest;
  const reply = new Promise<string>((resolve) => {
    waiting.set(id, resolve);
    toMain.postMessage({ ...msg, worker: threadId, id } as WorkerHostRequest);
  });
  return { id, reply };
}

let cancelled: number[] = [];
/** Forgets these requests here and asks the main thread (and the HTTP process) to stop their work. */
export function cancelRequests(ids: number[]): void {
  for (const id of ids) waiting.delete(id);
  if (cancelled.push(...ids) === ids.length) {
    queueMicrotask(() => {
      const batch = cancelled;
      cancelled = [];
      toMain.postMessage({ t: 'cancel', worker: threadId, ids: batch } satisfies WorkerHostRequest);
    });
  }
}

export async function codeFor(hash: string): Promise<string> {
  let code = codeCache.get(hash);
  if (code === undefined) {
    code = await ask({ t: 'code', hash }).reply;
    if (codeCache.size >= MAX_CODE_CACHE) codeCache.delete(codeCache.keys().next().value as string);
    codeCache.set(hash, code);
  }
  return code;
}
