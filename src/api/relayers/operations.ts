// Relayer and transaction operations: raw input in, validated once here, then handed to the domain.
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import type { NetworkType, PageRequest, RelayerOperations, RpcUrl, TransactionStatus } from '../../domain/types.ts';
import type { TransactionEvents } from '../../domain/transactions/ports.ts';
import type { Store } from '../../domain/ports.ts';
import { ValidationError } from '../../errors.ts';
import { compile, type Validator } from '../../validation/compile.ts';
import type { AllChains } from '../../domain/chains/reads.ts';
import { createRelayerChainService, relayerChainsOf } from '../../domain/chains/relayer-chain-service.ts';
import { createKeyedLock } from '../../domain/relayers/keyed-lock.ts';
import { createRelayerService, type CreateRelayerInput } from '../../domain/relayers/service.ts';
import type { RelayerChanges } from '../../domain/relayers/ports.ts';
import { normalizeRpcUrls } from '../../domain/relayers/seeding.ts';
import type { NetworkService } from '../../domain/networks/service.ts';
import type { SignerService } from '../../domain/signers/service.ts';
import type { Log } from '../../domain/notifications/ports.ts';
import { parsePolicies } from '../../config/relayer-policies.ts';
import { createTransactionService, type TransactionBody } from '../../domain/transactions/service.ts';
import { createRecordWriter } from '../../domain/transactions/record-writer.ts';
import { worstCaseOf } from '../../domain/transactions/evm/funds.ts';
import { createEvmFamily } from '../../domain/transactions/evm/relay.ts';
import type { LaneObserver } from '../../domain/transactions/evm/tick.ts';
import { createSolanaFamily } from '../../domain/transactions/solana/relay.ts';
import { createSolanaSwaps, SOLANA_SWAP_JOB } from '../../domain/transactions/solana/token-swap.ts';
import { unconfiguredFamily, type RelayFamily, type TransitionObserver } from '../../domain/transactions/family.ts';
import type { JobHandler } from '../../domain/jobs/scheduler.ts';
import { createRelayerBody, evmBody, idempotencyKeySchema, idSchema, listRelayersQuery, listTransactionsQuery, nonceSchema, solanaBody, stellarBody, updateRelayerBody } from './schemas.ts';
import { checkShape } from './shapes.ts';
import { createChainOperations } from './chain-operations.ts';
import { createRelayerEvents, type RelayerEvents } from '../../domain/webhooks/outbox.ts';
import type { StageObserver } from '../../domain/transactions/stage-clock.ts';
import { BALANCE_CHECK, createBalanceWatch, type BalanceWatch } from '../../domain/relayers/balance-watch.ts';
import { watchTransactions } from '../../domain/relayers/transaction-watch.ts';
import { balanceOf, rpcOf } from '../../domain/chains/reads.ts';
import { rpcOutages } from '../../domain/chains/rpc-availability.ts';
import { createSponsoredOperations } from './sponsored.ts';
import { createSolanaSponsored } from '../../domain/chains/solana/sponsored.ts';

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

type RawRpcUrls = Array<string | { url: string; weight?: number }> | null;
type UpdateBody = Omit<RelayerChanges, 'custom_rpc_urls'> & { custom_rpc_urls?: RawRpcUrls };
type CreateBody = Omit<CreateRelayerInput, 'custom_rpc_urls'> & { custom_rpc_urls?: RawRpcUrls };

/** Policies checked for the relayer's network type; an empty object or null clears them. */
function policiesFor(networkType: NetworkType, raw: Record<string, unknown> | null | undefined): Record<string, unknown> | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const parsed = parsePolicies(networkType, raw);
  return Object.keys(parsed).length ? parsed : null;
}

export interface RelayerOperationsDeps {
  store: Store;
  config: Config;
  logger: Logger;
  events: TransactionEvents;
  chains: AllChains;
  networks: NetworkService;
  signers: SignerService;
  /** The job scheduler: the network families register their background jobs with it. */
  jobs?: { register(kind: string, handler: JobHandler): void };
  observer?: TransitionObserver;
  /** Relayer webhook events (relayer_low_balance), through the outbox. */
  relayerEvents?: RelayerEvents;
  /** Stage latency, re-prices and re-broadcasts (metrics). */
  stages?: StageObserver;
  /** Key pools: per-lane metrics (observability/lane-metrics.ts). */
  lanes?: LaneObserver & { laneSent(relayerId: string, address: string): void };
  /** Refuses custom_rpc_urls the guard does not allow (RPC_ALLOWED_HOSTS, RPC_BLOCK_PRIVATE_IPS); VALIDATION_FAILED naming the host and the rule. */
  checkRpcUrls?: (urls: ReadonlyArray<{ url: string }>, field: string) => Promise<void>;
}

/**
 * Builds the operations and seeds the configured relayers into the store. With `jobs`, the families' background
 * work is registered and resumed (every non-final transaction gets its job back).
 */
/** What the composition root reads beside the operations: balance checks (gauges, status) and RPC outages (readiness). */
export interface RelayerWatches {
  balanceWatch: BalanceWatch;
  /** Why each network some relayer uses is unreachable now (every RPC URL down); empty when all answer. */
  rpcOutages(): Promise<string[]>;
}

export async function createRelayerOperations(deps: RelayerOperationsDeps): Promise<RelayerOperations & RelayerWatches> {
  const { store, config, events } = deps;
  const relayers = await createRelayerService({ repo: store.repos.relayers, config, chains: deps.chains, networks: deps.networks, signers: deps.signers, logger: deps.logger as Log });
  const relayerChains = relayerChainsOf(relayers, deps.chains);
  const balanceWatch = createBalanceWatch({
    store,
    events: deps.relayerEvents ?? createRelayerEvents(),
    logger: deps.logger as Log,
    balanceOf: (r) => balanceOf(relayerChains, r),
    fees: (r) => relayers.chain(r).fees(),
  });
  const watched = watchTransactions({ observer: deps.observer, stages: deps.stages, balanceWatch, relayers: store.repos.relayers });
  // EVM sends hold their worst case of the relayer's funds until mined (the ledger, transactions/evm/funds.ts).
  const writer = createRecordWriter({ events, observer: watched.observer, onBroadcast: watched.broadcast, worstCase: { evm: worstCaseOf }, fundsKey: (r) => relayers.laneKeyOf(r.relayer_id, r.from) });
  const ed25519 = { signer: (id: string) => relayers.signer(id).ed25519, network: relayers.network, store, writer, logger: deps.logger };
  // The Stellar parts load @stellar/stellar-base (~9 MiB): only a config with a Stellar network loads them (networks
  // come from the config alone, so none can appear later).
  const stellar = config.file.networks.some((n) => n.type === 'stellar') ? await import('../../domain/transactions/stellar/parts.ts') : undefined;
  const families: Record<NetworkType, RelayFamily> = {
    evm: createEvmFamily({ relayers, store, writer, logger: deps.logger, observer: deps.observer, relayerEvents: deps.relayerEvents, lanes: deps.lanes }),
    solana: createSolanaFamily({ ...ed25519, chains: deps.chains }),
    stellar: stellar ? stellar.createStellarFamily({ ...ed25519, chains: deps.chains }) : unconfiguredFamily('stellar'),
  };
  const transactions = createTransactionService({ relayers, store, writer, families, lock: createKeyedLock(), logger: deps.logger as Log, laneSent: deps.lanes?.laneSent });
  const sendOf = async (r: Parameters<typeof transactions.send>[0], body: Parameters<typeof transactions.send>[1]) => (await transactions.send(r, body)).record.id;
  // Stellar token swaps (swap_config): one job per relayer, each swap an ordinary send of the relayer.
  const swaps = stellar?.createStellarSwaps({ chains: deps.chains, relayers: store.repos.relayers, jobs: store.repos.jobs, transactions: store.repos.transactions, send: sendOf, logger: deps.logger as Log });
  // Solana token swaps (swap_config, jupiter-swap): the same, through Jupiter's swap transaction.
  const solanaSwaps = createSolanaSwaps({ chains: deps.chains, relayers: store.repos.relayers, jobs: store.repos.jobs, transactions: store.repos.transactions, send: sendOf, logger: deps.logger as Log });
  if (deps.jobs) {
    if (stellar && swaps) {
      deps.jobs.register(stellar.STELLAR_SWAP_JOB, swaps.handler);
      await swaps.resume();
    }
    deps.jobs.register(SOLANA_SWAP_JOB, solanaSwaps.handler);
    await solanaSwaps.resume();
  }
  if (deps.jobs) {
    for (const family of Object.values(families)) for (const [kind, handler] of Object.entries(family.jobs)) deps.jobs.register(kind, handler);
    for (const family of Object.values(families)) await family.resume();
    deps.jobs.register(BALANCE_CHECK, balanceWatch.handler);
    await balanceWatch.resume();
  }
  const chain = createRelayerChainService({ relayers, chains: deps.chains, transactions: store.repos.transactions, lastBalanceCheck: balanceWatch.view, send: async (relayer, body) => (await transactions.send(relayer, body)).record });

  const relayerId = compile<string>(idSchema, 'relayer_id');
  const transactionId = compile<string>(idSchema, 'transaction_id');
  const nonce = compile<string>(nonceSchema, 'nonce');
  const idempotencyKey = compile<string>(idempotencyKeySchema, 'Idempotency-Key');
  const relayersQuery = compile<PageRequest>(listRelayersQuery, 'query', { coerce: true });
  const transactionsQuery = compile<PageRequest & { status?: TransactionStatus }>(listTransactionsQuery, 'query', { coerce: true });
  const updateBody = compile<UpdateBody>(updateRelayerBody, 'body');
  const createBody = compile<CreateBody>(createRelayerBody, 'body');
  const activeCount = async (id: string) => {
    const counts = await Promise.all((['pending', 'sent', 'submitted'] as const).map((status) => store.repos.transactions.count(id, status)));
    return counts.reduce((a, b) => a + b, 0);
  };
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
    balanceWatch,
    rpcOutages: () => rpcOutages(store.repos.relayers, (r) => rpcOf(relayerChains, r)),
    ...createChainOperations({ relayers, chain }),
    ...createSponsoredOperations({ relayers, families: { stellar: stellar?.createStellarSponsored({ chains: deps.chains }), solana: createSolanaSponsored({ chains: deps.chains, signer: (id) => relayers.signer(id).ed25519 }) } }),
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
      return transactions.replace(relayer, transactionId(txId), transactionBody(relayer.network_type, relayer.id, body));
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
