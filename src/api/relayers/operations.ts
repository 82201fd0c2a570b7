// Relayer and transaction operations: raw input in, validated once here, then handed to the domain.
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { NetworkType, PageRequest, RelayerOperations, TransactionEvents, TransactionStatus } from '../../domain/types.ts';
import type { Store } from '../../domain/ports.ts';
import { ValidationError } from '../../errors.ts';
import { compile, type Validator } from '../../validation.ts';
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

/** Builds the operations and seeds the configured relayers into the store. */
export async function createRelayerOperations(deps: { store: Store; config: Config; logger: Logger; events: TransactionEvents; chains: Chains }): Promise<RelayerOperations> {
  const { store, config, events } = deps;
  // Signer keys named by private_key_env are read from the process environment at start.
  const relayers = await createRelayerService({ repo: store.repos.relayers, config, env: process.env, chains: deps.chains });
  const transactions = createTransactionService({ relayers, store, events, lock: createKeyedLock() });

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
      const relayer = await relayers.require(relayerId(id));
      if (body === undefined) throw new ValidationError('a JSON request body is required');
      return relayers.update(relayer.id, updateBody(body));
    },
    async sendTransaction(id, body) {
      const relayer = await relayers.require(relayerId(id));
      return transactions.send(relayer, transactionBody(relayer.network_type, relayer.id, body));
    },
    async getTransaction(id, txId) {
      const relayer = await relayers.require(relayerId(id));
      return transactions.get(relayer, transactionId(txId));
    },
    async listTransactions(id, query) {
      const relayer = await relayers.require(relayerId(id));
      const q = transactionsQuery(queryCopy(query));
      return transactions.list(relayer, q.page, q.per_page, q.status);
    },
    async replaceTransaction(id, txId, body) {
      // The spec's replace table answers an unknown relayer with plain `Not found`.
      const relayer = await relayers.require(relayerId(id), 'NOT_FOUND');
      return transactions.replace(relayer, transactionId(txId), transactionBody(relayer.network_type, relayer.id, body));
    },
    async cancelTransaction(id, txId) {
      const relayer = await relayers.require(relayerId(id));
      return transactions.cancel(relayer, transactionId(txId));
    },
  };
}
