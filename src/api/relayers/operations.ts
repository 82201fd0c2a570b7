// Relayer and transaction operations: raw input in, validated once here, then handed to the domain.
import type { NetworkType, PageRequest, RelayerOperations, RpcUrl, TransactionStatus } from '../../domain/types.ts';
import type { Store } from '../../domain/ports.ts';
import { ValidationError } from '../../errors.ts';
import { compile, type Validator } from '../../validation/compile.ts';
import type { CreateRelayerInput } from '../../domain/relayers/service.ts';
import type { RelayerChanges } from '../../domain/relayers/ports.ts';
import { normalizeRpcUrls } from '../../domain/relayers/seeding.ts';
import type { Relaying } from '../../domain/relaying.ts';
import { parsePolicies } from '../../config/relayer-policies.ts';
import type { TransactionBody } from '../../domain/transactions/service.ts';
import {
  createRelayerBody,
  evmBody,
  idempotencyKeySchema,
  idSchema,
  listRelayersQuery,
  listTransactionsQuery,
  nonceSchema,
  solanaBody,
  stellarBody,
  updateRelayerBody,
} from './schemas.ts';
import { checkShape } from './shapes.ts';
import { createChainOperations } from './chain-operations.ts';
import { createSponsoredOperations } from './sponsored.ts';
import { scopedPage } from '../scoped-list.ts';

/** Query values arrive as strings (or arrays when repeated); a repeated parameter is ambiguous, so refused. */
function queryCopy(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError('query must be an object of parameters');
  for (const [key, value] of Object.entries(raw)) {
    if (Array.isArray(value)) throw new ValidationError(`query parameter '${key}' must be given once`);
    if (value !== null && typeof value === 'object')
      throw new ValidationError(`query parameter '${key}' must be a single value`);
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

type RawRpcUrls = Array<string | { url: string; weight?: number }> | null;
type UpdateBody = Omit<RelayerChanges, 'custom_rpc_urls'> & { custom_rpc_urls?: RawRpcUrls };
type CreateBody = Omit<CreateRelayerInput, 'custom_rpc_urls'> & { custom_rpc_urls?: RawRpcUrls };

/** Policies checked for the relayer's network type; an empty object or null clears them. */
function policiesFor(
  networkType: NetworkType,
  raw: Record<string, unknown> | null | undefined,
): Record<string, unknown> | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const parsed = parsePolicies(networkType, raw);
  return Object.keys(parsed).length ? parsed : null;
}

export interface RelayerOperationsDeps {
  /** The store's transaction counts: a relayer with transactions in flight is not deleted. */
  store: Store;
  /** Refuses custom_rpc_urls the guard does not allow (RPC_ALLOWED_HOSTS, RPC_BLOCK_PRIVATE_IPS); VALIDATION_FAILED naming the host and the rule. */
  checkRpcUrls?: (urls: ReadonlyArray<{ url: string }>, field: string) => Promise<void>;
}

/** Every input of the relayer routes, compiled once at start: ids, the queries, the relayer and transaction bodies. */
function compileInputs() {
  const bodies: Record<NetworkType, Validator<TransactionBody>> = {
    evm: compile(evmBody, 'body'),
    solana: compile(solanaBody, 'body'),
    stellar: compile(stellarBody, 'body'),
  };
  return {
    relayerId: compile<string>(idSchema, 'relayer_id'),
    transactionId: compile<string>(idSchema, 'transaction_id'),
    nonce: compile<string>(nonceSchema, 'nonce'),
    idempotencyKey: compile<string>(idempotencyKeySchema, 'Idempotency-Key'),
    relayersQuery: compile<PageRequest>(listRelayersQuery, 'query', { coerce: true }),
    transactionsQuery: compile<PageRequest & { status?: TransactionStatus }>(listTransactionsQuery, 'query', {
      coerce: true,
    }),
    updateBody: compile<UpdateBody>(updateRelayerBody, 'body'),
    createBody: compile<CreateBody>(createRelayerBody, 'body'),
    /** A send's or a replace's body: its shape told apart first (checkShape), then its network type's schema. */
    transactionBody(networkType: NetworkType, relayer: string, raw: unknown): TransactionBody {
      const body = withoutNulls(raw);
      checkShape(networkType, relayer, body);
      return bodies[networkType](body);
    },
  };
}

/** The relayer and transaction operations over the relaying services (src/domain/relaying.ts): each input checked once, here. */
export function createRelayerOperations(relaying: Relaying, deps: RelayerOperationsDeps): RelayerOperations {
  const { store } = deps;
  const { relayers, transactions, chain } = relaying;
  const {
    relayerId,
    transactionId,
    nonce,
    idempotencyKey,
    relayersQuery,
    transactionsQuery,
    updateBody,
    createBody,
    transactionBody,
  } = compileInputs();
  const activeCount = async (id: string) => {
    const counts = await Promise.all(
      (['pending', 'sent', 'submitted'] as const).map((status) => store.repos.transactions.count(id, status)),
    );
    return counts.reduce((a, b) => a + b, 0);
  };

  return {
    ...createChainOperations({ relayers, chain }),
    ...createSponsoredOperations({ relayers, families: relaying.sponsored }),
    async listRelayers(query, scope = 'all') {
      const q = relayersQuery(queryCopy(query));
      // A key scoped to some relayers lists those of them that exist (the query checked once, here).
      return scopedPage(
        scope,
        q,
        () => relayers.list(q.page, q.per_page),
        (id) => relayers.get(relayerId(id)),
      );
    },
    async getRelayer(id) {
      return relayers.get(relayerId(id));
    },
    async updateRelayer(id, body) {
      const relayer = await relayers.require(relayerId(id));
      if (body === undefined) throw new ValidationError('a JSON request body is required');
      const { custom_rpc_urls, policies, ...rest } = updateBody(body);
      const changes: RelayerChanges = { ...rest };
      if (policies !== undefined) changes.policies = policiesFor(relayer.network_type, policies);
      if (custom_rpc_urls !== undefined) changes.custom_rpc_urls = normalizeRpcUrls(custom_rpc_urls) as RpcUrl[] | null;
      await deps.checkRpcUrls?.(changes.custom_rpc_urls ?? [], 'custom_rpc_urls');
      return relayers.update(relayer.id, changes);
    },
    async createRelayer(body) {
      if (body === undefined) throw new ValidationError('a JSON request body is required');
      const input = createBody(body);
      const custom_rpc_urls = normalizeRpcUrls(input.custom_rpc_urls);
      await deps.checkRpcUrls?.(custom_rpc_urls ?? [], 'custom_rpc_urls');
      return relayers.create({ ...input, policies: policiesFor(input.network_type, input.policies), custom_rpc_urls });
    },
    async deleteRelayer(id) {
      const relayer = await relayers.require(relayerId(id));
      await relayers.remove(relayer.id, await activeCount(relayer.id));
    },
    async sendTransaction(id, body, key) {
      const relayer = await relayers.requireForSend(relayerId(id));
      const checkedKey = key === undefined ? undefined : idempotencyKey(key);
      return transactions.send(relayer, transactionBody(relayer.network_type, relayer.id, body), checkedKey);
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
      return transactions.replace(
        relayer,
        transactionId(txId),
        transactionBody(relayer.network_type, relayer.id, body),
      );
    },
    async cancelTransaction(id, txId) {
      const relayer = await relayers.require(relayerId(id));
      return transactions.cancel(relayer, transactionId(txId));
    },
    async getTransactionByNonce(id, rawNonce) {
      const checkedId = relayerId(id);
      // Checked before the relayer is read, as the reference refuses the path first.
      const value = BigInt(nonce(rawNonce));
      return transactions.getByNonce(await relayers.require(checkedId), value);
    },
    async deletePendingTransactions(id) {
      return transactions.cancelPending(await relayers.require(relayerId(id)));
    },
  };
}
