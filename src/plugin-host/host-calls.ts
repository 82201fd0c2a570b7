// The host side of the sandbox's calls (api.*, kv.*): each runs the very same domain code as the HTTP routes, is
// bounded on the way in and out, and is cancelled when the plugin call that made it ends (a transactionWait poller
// stops at once, a late reply is dropped). One session per runtime process: its calls end with it.
import type { Logger } from 'pino';
import type { RelayerOperations, TransactionRecord } from '../domain/types.ts';
import { FINAL_STATUSES } from '../domain/types.ts';
import { AppError, PluginError, ValidationError } from '../errors.ts';
import type { KvQuota, KvRepo } from '../domain/kv/ports.ts';
import { kvOperation } from './kv.ts';

/** One host call as the runtime relays it: `args` is JSON text made (and bounded) in the sandbox. */
export interface HostCallRequest {
  id: number;
  plugin: string;
  op: string;
  args: string;
  /** Epoch ms: the plugin call's deadline. */
  deadline: number;
}

export interface HostCallLimits {
  /** Bytes of one call's argument JSON. */
  maxArgBytes: number;
  /** Bytes of one reply's JSON. */
  maxReplyBytes: number;
}

export interface HostCallSession {
  /** Runs the call; resolves with the reply JSON `{"ok":true,"value":…}` / `{"ok":false,"error":…}`, or undefined when cancelled. */
  run(request: HostCallRequest): Promise<string | undefined>;
  cancel(id: number): void;
  /** Cancels every call still running (the runtime process is gone). */
  close(): void;
  readonly running: number;
}

export interface HostCallDeps {
  relayers: RelayerOperations;
  kv: KvRepo;
  logger: Logger;
  limits: HostCallLimits;
  quotaOf(pluginId: string): KvQuota;
}

const MIN_WAIT_INTERVAL_MS = 100;
/** The reference's transactionWait defaults: a check every 5 s, for at most 60 s. */
const WAIT_INTERVAL_MS = 5000;
const WAIT_TIMEOUT_MS = 60_000;
/** We check at most this far apart whatever `interval` says: a check is a store read, and an answer sooner is better. */
const MAX_CHECK_GAP_MS = 500;

function str(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new ValidationError(`${name} must be a non-empty string`);
  return value;
}

/** `sendTransaction(tx, { idempotencyKey })`: bounded here; the operation checks it as it checks the HTTP header. */
function idempotencyKeyOf(args: Record<string, unknown>): string | undefined {
  const key = args.idempotencyKey;
  if (key === undefined || key === null) return undefined;
  if (typeof key !== 'string' || !/^[\x20-\x7E]{1,255}$/.test(key))
    throw new ValidationError('idempotencyKey must be a string of 1 to 255 printable ASCII characters');
  return key;
}

// biome-ignore lint/suspicious/noExplicitAny: a plugin's argument object: each host call checks the fields it reads
type Fields = Record<string, any>;
const record = (v: unknown): Fields => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : {});

/** What the sandbox sees when a host call fails: the same code/status/reason the HTTP API would give. */
function errorReply(err: unknown, logger: Logger): string {
  // The plugin API's own verdicts (a transactionWait past its timeout): a plugin failure's code, status and details.
  if (err instanceof PluginError)
    return JSON.stringify({
      ok: false,
      error: { code: err.code, message: err.message, status: err.status, details: err.details },
    });
  if (err instanceof AppError)
    return JSON.stringify({
      ok: false,
      error: { code: err.code, message: err.reason, status: err.status, details: err.details ?? {} },
    });
  logger.error({ err }, 'plugin host call failed');
  return JSON.stringify({
    ok: false,
    error: { code: 'INTERNAL', message: 'Internal Server Error', status: 500, details: {} },
  });
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * `api.transactionWait` / `sendTransaction(…).wait()`: resolves once the transaction is mined or final, as the
 * reference does; past `timeout` it fails as the reference's does, 504 TIMEOUT. Bounded by the plugin call's deadline
 * and lifetime (cancelled with the call).
 */
async function waitForFinal(
  relayers: RelayerOperations,
  relayerId: string,
  transactionId: string,
  opts: Record<string, unknown>,
  deadline: number,
  signal: AbortSignal,
): Promise<TransactionRecord | undefined> {
  const interval =
    typeof opts.interval === 'number' && Number.isFinite(opts.interval)
      ? Math.max(MIN_WAIT_INTERVAL_MS, opts.interval)
      : WAIT_INTERVAL_MS;
  const timeout =
    typeof opts.timeout === 'number' && Number.isFinite(opts.timeout) && opts.timeout > 0
      ? opts.timeout
      : WAIT_TIMEOUT_MS;
  const until = Date.now() + timeout;
  for (;;) {
    const tx = await relayers.getTransaction(relayerId, transactionId);
    if (tx.status === 'mined' || FINAL_STATUSES.has(tx.status)) return tx;
    const left = Math.min(until, deadline) - Date.now();
    if (left <= 0)
      throw new PluginError({
        code: 'TIMEOUT',
        message: `Transaction ${transactionId} timed out after ${timeout}ms`,
        status: 504,
        details: { transactionId, timeout, status: tx.status },
      });
    await sleep(Math.min(interval, MAX_CHECK_GAP_MS, left), signal);
    if (signal.aborted) return undefined;
  }
}

/** Executes one host call; returns the JSON text of its value (kv.* operations: kv.ts). */
async function dispatch(req: HostCallRequest, deps: HostCallDeps, signal: AbortSignal): Promise<string> {
  const { relayers, kv } = deps;
  const args = record(JSON.parse(req.args));
  const p = record(args.payload);
  switch (req.op) {
    case 'relayer.getRelayer':
      return JSON.stringify(await relayers.getRelayer(str(args.relayerId, 'relayerId')));
    case 'relayer.getRelayerStatus':
      return JSON.stringify(await relayers.getRelayerStatus(str(args.relayerId, 'relayerId')));
    case 'relayer.rpc':
      return JSON.stringify(await relayers.rpc(str(args.relayerId, 'relayerId'), args.payload));
    case 'relayer.signTransaction':
      return JSON.stringify(await relayers.signTransaction(str(args.relayerId, 'relayerId'), args.payload));
    case 'relayer.sendTransaction':
      return JSON.stringify(
        (await relayers.sendTransaction(str(args.relayerId, 'relayerId'), args.payload, idempotencyKeyOf(args))).record,
      );
    case 'relayer.getTransaction':
      return JSON.stringify(
        await relayers.getTransaction(str(args.relayerId, 'relayerId'), str(p.transactionId, 'transactionId')),
      );
    case 'relayer.listTransactions':
      return JSON.stringify(await relayers.listTransactions(str(args.relayerId, 'relayerId'), p));
    case 'relayer.replaceTransaction':
      return JSON.stringify(
        await relayers.replaceTransaction(
          str(args.relayerId, 'relayerId'),
          str(p.transactionId, 'transactionId'),
          p.request,
        ),
      );
    case 'relayer.cancelTransaction':
      return JSON.stringify(
        await relayers.cancelTransaction(str(args.relayerId, 'relayerId'), str(p.transactionId, 'transactionId')),
      );
    case 'relayer.waitTransaction':
      return JSON.stringify(
        (await waitForFinal(
          relayers,
          str(args.relayerId, 'relayerId'),
          str(p.transactionId, 'transactionId'),
          p,
          req.deadline,
          signal,
        )) ?? null,
      );
  }
  const kvOp = kvOperation(req.op);
  if (kvOp) return await kvOp(kv, req.plugin, args, deps.quotaOf);
  throw new ValidationError(`unknown host operation '${String(req.op).slice(0, 64)}'`);
}

export function createHostCallSession(deps: HostCallDeps): HostCallSession {
  const running = new Map<number, AbortController>();
  return {
    get running() {
      return running.size;
    },
    async run(req) {
      if (typeof req.args !== 'string' || Buffer.byteLength(req.args) > deps.limits.maxArgBytes) {
        return errorReply(new ValidationError(`api/kv arguments exceed ${deps.limits.maxArgBytes} bytes`), deps.logger);
      }
      const controller = new AbortController();
      running.set(req.id, controller);
      try {
        const value = await dispatch(req, deps, controller.signal);
        if (controller.signal.aborted) return undefined;
        if (value.length > deps.limits.maxReplyBytes) {
          return errorReply(
            new ValidationError(`the reply to ${req.op} exceeds ${deps.limits.maxReplyBytes} bytes`),
            deps.logger,
          );
        }
        return `{"ok":true,"value":${value}}`;
      } catch (err) {
        return controller.signal.aborted ? undefined : errorReply(err, deps.logger);
      } finally {
        running.delete(req.id);
      }
    },
    cancel(id) {
      running.get(id)?.abort();
      running.delete(id);
    },
    close() {
      for (const c of running.values()) c.abort();
      running.clear();
    },
  };
}
