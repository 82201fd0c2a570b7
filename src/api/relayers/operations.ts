// Relayer and transaction operations: raw input in, validated once here, then handed to the domain.
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Db } from '../../store/db.ts';
import type { NetworkType, PageRequest, RelayerOperations, TransactionEvents, TransactionStatus } from '../../domain/types.ts';
import { ValidationError } from '../../errors.ts';
import { compile, type Validator } from '../../validation.ts';
import { createRelayersRepo } from '../../store/relayers-repo.ts';
import { createTransactionsRepo } from '../../store/transactions-repo.ts';
import type { Atomically } from '../../domain/relayers/ports.ts';
import type { Chains } from '../../domain/chains/ports.ts';
import { createKeyedLock } from '../../domain/relayers/keyed-lock.ts';
import { createRelayerService } from '../../domain/relayers/service.ts';
import { createTransactionService, type TransactionBody } from '../../domain/transactions/service.ts';
import { evmBody, idSchema, listRelayersQuery, listTransactionsQuery, solanaBody, stellarBody, updateRelayerBody } from './schemas.ts';
import { checkShape } from './shapes.ts';

/** Query values arrive as strings (or arrays when repeated); a repeated parameter is ambiguous, so refused. */
function queryCopy(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError('query must be an object of parameters');
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value)) throw new ValidationError(`query parameter '${key}' must be given once`);
    if (value !== null && typeof value === 'object') throw new ValidationError(`query parameter '${key}' must be a single value`);
  }
  return { ...raw };
}

/**
 * Spec: optional fields "or null" mean absent; dropping nulls keeps one schema per field.
 * Removed in place: the parsed body carries notes on how its numbers were written (validation.ts).
 */
function withoutNulls(body: unknown): unknown {
  if (body === undefined) throw new ValidationError('a JSON request body is required');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) if (record[key] === null) delete record[key];
  return record;
}

export function createRelayerOperations(deps: { db: Db; config: Config; logger: Logger; events: TransactionEvents; chains: Chains }): RelayerOperations {
  const { db, config, events } = deps;
  const relayersRepo = createRelayersRepo(db);
  const inTransaction = db.transaction((fn: () => unknown) => fn());
  const atomically: Atomically = (fn) => inTransaction(fn) as ReturnType<typeof fn>;
  // Signer keys named by private_key_env are read from the process environment at start.
  const relayers = createRelayerService({ repo: relayersRepo, config, env: process.env, chains: deps.chains });
  const transactions = createTransactionService({
    relayers,
    relayersRepo,
    transactions: createTransactionsRepo(db),
    atomically,
    events,
    lock: createKeyedLock(),
  });

  const relayerId = compile<string>(idSchema, 'relayer_id');
  const transactionId = compile<string>(idSchema, 'transaction_id');
  const relayersQuery = compile<PageRequest>(listRelayersQuery, 'query', { coerce: true });
  const transactionsQuery = compile<PageRequest & { status?: TransactionStatus }>(listTransactionsQuery, 'query', { coerce: true });
  const updateBody = compile<{ paused?: boolean; notification_id?: string | null }>(updateRelayerBody, 'body');
  const bodies: Record<NetworkType, Validator<TransactionBody>> = {
    evm: compile(evmBody, 'body'),
    solana: compile(solanaBody, 'body'),
    stellar: compile(stellarBody, 'body'),
  };
  const transactionBody = (networkType: NetworkType, relayer: string, raw: unknown): TransactionBody => {
    const body = withoutNulls(raw);
    checkShape(networkType, relayer, body);
    return bodies[networkType](body);
  };

  return {
    async listRelayers(query) {
      const q = relayersQuery(queryCopy(query));
      return relayers.list(q.page, q.per_page);
    },
    async getRelayer(id) {
      return relayers.get(relayerId(id));
    },
    async updateRelayer(id, body) {
      const relayer = relayers.require(relayerId(id));
      if (body === undefined) throw new ValidationError('a JSON request body is required');
      return relayers.update(relayer.id, updateBody(body));
    },
    async sendTransaction(id, body) {
      const relayer = relayers.require(relayerId(id));
      return transactions.send(relayer, transactionBody(relayer.network_type, relayer.id, body));
    },
    async getTransaction(id, txId) {
      const relayer = relayers.require(relayerId(id));
      return transactions.get(relayer, transactionId(txId));
    },
    async listTransactions(id, query) {
      const relayer = relayers.require(relayerId(id));
      const q = transactionsQuery(queryCopy(query));
      return transactions.list(relayer, q.page, q.per_page, q.status);
    },
    async replaceTransaction(id, txId, body) {
      // The spec's replace table answers an unknown relayer with plain `Not found`.
      const relayer = relayers.require(relayerId(id), 'NOT_FOUND');
      return transactions.replace(relayer, transactionId(txId), transactionBody(relayer.network_type, relayer.id, body));
    },
    async cancelTransaction(id, txId) {
      const relayer = relayers.require(relayerId(id));
      return transactions.cancel(relayer, transactionId(txId));
    },
  };
}
