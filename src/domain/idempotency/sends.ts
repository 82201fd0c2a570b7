// Idempotency keys for sends: the same key with the same request answers the transaction the first one created; with
// another request, 409. Requests racing on one key in this process wait for the first; across instances the store's
// unique key decides, in the store transaction that writes the transaction (send-writer.ts).
import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { Log } from '../log.ts';
import type { TransactionsRepo } from '../relayers/ports.ts';
import type { SentTransaction, TransactionRecord } from '../types.ts';
import type { IdempotencyRepo } from './ports.ts';

/** Entries are kept this long: 24 h, and an hour more so that instances whose clocks differ still keep them 24 h. */
export const IDEMPOTENCY_RETENTION_MS = 25 * 3600_000;
/** Expired entries are deleted at most this often per process (after a keyed send). */
const PRUNE_EVERY_MS = 10 * 60_000;
/** A key found taken is read again at most this many times (each time a transaction holding it was committed). */
const TAKEN_ROUNDS = 4;

/** What a keyed send carries to the store transaction that writes its transaction. */
export interface IdempotencyClaimOf {
  key: string;
  requestHash: string;
}

/** A send whose key another request wrote first (another instance): it is answered with that request's transaction. */
export class KeyTakenError extends Error {
  constructor(key: string) {
    super(`idempotency key '${key}' was taken by another request`);
    this.name = 'KeyTakenError';
  }
}

/** JSON with object keys sorted, so key order and whitespace do not make two requests differ. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const requestHash = (body: unknown): string => createHash('sha256').update(canonical(body)).digest('hex');

export interface IdempotentSends {
  /** Runs `send` once per (relayer, key) and request; `send` writes the claim with its transaction. */
  send(
    relayerId: string,
    key: string,
    body: unknown,
    send: (claim: IdempotencyClaimOf) => Promise<TransactionRecord>,
  ): Promise<SentTransaction>;
}

export function createIdempotentSends(deps: {
  keys: IdempotencyRepo;
  transactions: TransactionsRepo;
  logger?: Log;
  now?: () => number;
}): IdempotentSends {
  const now = deps.now ?? Date.now;
  const inFlight = new Map<string, Promise<unknown>>();
  let lastPrune = 0;

  /** The transaction the key already answered, a 409 when it answered another request, or undefined when it is free. */
  async function answered(relayerId: string, key: string, hash: string): Promise<TransactionRecord | undefined> {
    const entry = await deps.keys.get(relayerId, key);
    if (!entry || entry.createdMs < now() - IDEMPOTENCY_RETENTION_MS) return undefined;
    if (entry.requestHash !== hash) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', {
        reason: `Idempotency-Key '${key}' was already used on relayer '${relayerId}' with a different request (it answered transaction '${entry.transactionId}'); send a new key for a new transaction`,
      });
    }
    const found = await deps.transactions.get(relayerId, entry.transactionId);
    if (!found)
      throw new AppError('INTERNAL', {
        reason: `Idempotency-Key '${key}' names transaction '${entry.transactionId}', which is gone`,
      });
    return found.record;
  }

  function pruneNow(): void {
    const t = now();
    if (t - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = t;
    deps.keys.prune(t - IDEMPOTENCY_RETENTION_MS).then(
      (n) => n > 0 && deps.logger?.debug({ deleted: n }, 'expired idempotency keys deleted'),
      (err: unknown) =>
        deps.logger?.warn({ err }, 'expired idempotency keys could not be deleted; the next keyed send tries again'),
    );
  }

  return {
    async send(relayerId, key, body, send) {
      const hash = requestHash(body);
      const slot = `${relayerId}\u0000${key}`;
      for (let taken = 0; ; ) {
        // A request with this key running here: wait for its outcome, then look again (its transaction, or a free key
        // if it failed before writing one).
        const running = inFlight.get(slot);
        if (running) {
          await running.catch(() => undefined);
          continue;
        }
        const record = await answered(relayerId, key, hash);
        if (record) return { record, replayed: true };
        if (inFlight.has(slot)) continue;
        const attempt = send({ key, requestHash: hash });
        inFlight.set(slot, attempt);
        try {
          const sent = await attempt;
          pruneNow();
          return { record: sent, replayed: false };
        } catch (err) {
          if (!(err instanceof KeyTakenError) || ++taken >= TAKEN_ROUNDS) throw err;
        } finally {
          if (inFlight.get(slot) === attempt) inFlight.delete(slot);
        }
      }
    },
  };
}
