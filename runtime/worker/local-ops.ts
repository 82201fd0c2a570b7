// Requests of a plugin call that the worker answers itself, without the HTTP process: `fetch` (runtime/worker/egress.ts)
// and `crypto.subtle` (runtime/worker/web-crypto.ts). Each runs under a hold of the call's scope: cancelled (aborted) when
// the call answers, its reply delivered in the call's next entry only while the call lives.
import { RUNTIME_ERRORS } from '../common/errors.ts';
import type { CallScope, Hold } from './call-scope.ts';
import { egressFetch } from './egress.ts';
import type { createTraceBook } from './outcome.ts';
import type { CallTask, RuntimeLimits } from '../protocol.ts';
import { runSubtle, subtleError } from './web-crypto.ts';

export interface LocalOps {
  readonly allowed: ReadonlySet<string>;
  /** Bytes of fetch responses this call may still receive. */
  budget: { bytes: number } | undefined;
  cryptoOps: number;
  running: Map<number, { controller: AbortController; hold: Hold }>;
  /** The plugin aborted request `id` (an AbortSignal): its reply must never arrive. */
  abort(id: unknown): void;
}

export interface LocalRequest {
  id: number;
  op: 'fetch' | 'crypto.subtle';
  args: unknown;
  deadline: number;
  scope: CallScope;
  traces: ReturnType<typeof createTraceBook> | undefined;
  limits: RuntimeLimits;
  deliver(text: string): void;
  /** Counts a fetch as one of the call's api calls (and its arguments in the call's byte budget). */
  countApiCall(): { code: string; message: string; status: number } | undefined;
}

export function createLocalOps(task: CallTask): LocalOps {
  const running = new Map<number, { controller: AbortController; hold: Hold }>();
  return {
    allowed: new Set(task.allowedOrigins),
    budget: undefined,
    cryptoOps: 0,
    running,
    abort(id) {
      const r = typeof id === 'number' ? running.get(id) : undefined;
      if (!r) return;
      running.delete(id as number);
      r.controller.abort();
      r.hold.release();
    },
  };
}

const refused = (code: string, message: string, status: number) =>
  JSON.stringify({ ok: false, error: { code, message, status, details: {} } });

/** Why this request may not run, as the reply the sandbox gets; undefined when it may. */
function admission(ops: LocalOps, req: LocalRequest): string | undefined {
  if (typeof req.args !== 'string' || req.args.length > req.limits.maxHostArgBytes)
    return refused('VALIDATION_FAILED', `arguments exceed ${req.limits.maxHostArgBytes} bytes`, 400);
  if (req.op === 'fetch') {
    const r = req.countApiCall();
    return r ? refused(r.code, r.message, r.status) : undefined;
  }
  if (++ops.cryptoOps > req.limits.maxCryptoOps) {
    const { code, text, status } = RUNTIME_ERRORS.cryptoOps;
    return refused(code, text.replace('{limit}', String(req.limits.maxCryptoOps)), status);
  }
  return undefined;
}

async function work(ops: LocalOps, req: LocalRequest, signal: AbortSignal): Promise<string> {
  if (req.op === 'crypto.subtle')
    return runSubtle(req.args as string).then((value) => `{"ok":true,"value":${value}}`, subtleError);
  ops.budget ??= { bytes: req.limits.maxFetchBytesPerCall };
  const out = await egressFetch(req.args as string, ops.allowed, req.deadline, signal, req.limits, ops.budget);
  req.traces?.add('fetch', '', JSON.stringify(out.trace));
  return out.reply;
}

export function startLocal(ops: LocalOps, req: LocalRequest): void {
  const refusal = admission(ops, req);
  const controller = new AbortController();
  const hold = req.scope.hold(() => controller.abort());
  if (!hold) return;
  if (refusal !== undefined) {
    req.deliver(refusal);
    hold.release();
    return;
  }
  ops.running.set(req.id, { controller, hold });
  work(ops, req, controller.signal).then(
    (text) => {
      if (controller.signal.aborted || req.scope.ended) return;
      ops.running.delete(req.id);
      req.deliver(text);
      hold.release();
    },
    () => {
      if (controller.signal.aborted || req.scope.ended) return;
      ops.running.delete(req.id);
      req.deliver(refused('INTERNAL', `${req.op} failed in the runtime`, 500));
      hold.release();
    },
  );
}
