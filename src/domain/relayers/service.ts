// Relayer use cases: seed from config, list, get, create, update, delete, and the signer, network and chain of a relayer.
import { randomUUID } from 'node:crypto';
import type { Config, NetworkConfig } from '../../config/config.ts';
import type { Chains, EvmChain } from '../chains/ports.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Page, RelayerView, RpcUrl } from '../types.ts';
import type { Log } from '../log.ts';
import type { NetworkService } from '../networks/service.ts';
import { maskRpcUrls } from '../networks/mask.ts';
import type { SignerService } from '../signers/service.ts';
import type { Signer } from '../signers/ports.ts';
import type { RelayerChanges, RelayerRow, RelayersRepo } from './ports.ts';
import { wrongChecksumReceivers } from './policies.ts';
import { reportRelayerDrift, seedOf } from './seeding.ts';
import { seedHashOf } from './seed-hash.ts';
import { createRelayerRowCache, type RelayerRowCache } from './row-cache.ts';

/** POST /api/v1/relayers after validation (policies already checked for the network type). */
export interface CreateRelayerInput {
  id?: string;
  name: string;
  network: string;
  network_type: NetworkConfig['type'];
  paused: boolean;
  signer_id: string;
  notification_id?: string | null;
  policies?: Record<string, unknown> | null;
  custom_rpc_urls?: RpcUrl[] | null;
}

export interface RelayerService {
  list(page: number, perPage: number): Promise<Page<RelayerView>>;
  get(id: string): Promise<RelayerView>;
  create(input: CreateRelayerInput): Promise<RelayerView>;
  update(id: string, changes: RelayerChanges): Promise<RelayerView>;
  /** Refused (400) while the relayer has pending, sent or submitted transactions. */
  remove(id: string, activeTransactions: number): Promise<void>;
  /** The relayer row, or a 404 with the given catalogue code (replace asks for plain `Not found`). */
  require(id: string, notFound?: 'RELAYER_NOT_FOUND' | 'NOT_FOUND'): Promise<RelayerRow>;
  /** As `require`, from the rows held for sends (up to ROW_HOLD_MS old; the send writer checks it under the row lock). */
  requireForSend(id: string): Promise<RelayerRow>;
  /** The rows held for the send path; `require` refreshes them, update and delete here too. */
  rows: RelayerRowCache;
  signer(relayerId: string): Signer;
  network(relayer: RelayerRow): NetworkConfig;
  /** The EVM chain the relayer sends to. */
  chain(relayer: RelayerRow): EvmChain;
}

export const toRelayerView = (r: RelayerRow): RelayerView => ({
  id: r.id,
  name: r.name,
  network: r.network,
  network_type: r.network_type,
  paused: r.paused,
  signer_id: r.signer_id,
  address: r.address,
  notification_id: r.notification_id,
  policies: r.policies,
  custom_rpc_urls: r.custom_rpc_urls ? maskRpcUrls(r.custom_rpc_urls) : null,
  system_disabled: r.system_disabled,
  disabled_reason: r.disabled_reason,
});

export interface RelayerServiceDeps {
  repo: RelayersRepo;
  config: Config;
  chains: Chains;
  networks: NetworkService;
  signers: SignerService;
  logger: Log;
}

/** Builds the service, seeds the configured relayers into the store and resolves every relayer's signer. */
export async function createRelayerService(deps: RelayerServiceDeps): Promise<RelayerService> {
  const { repo, networks, signers: signerService, logger } = deps;
  const signers = new Map<string, Signer>();
  await seedConfigRelayers(deps);
  await resolveStoredSigners(deps, signers);

  const heldRows = createRelayerRowCache((id) => repo.get(id));
  const found = (id: string, row: RelayerRow | undefined, notFound: 'RELAYER_NOT_FOUND' | 'NOT_FOUND' = 'RELAYER_NOT_FOUND'): RelayerRow => {
    if (!row) throw new NotFoundError(notFound, { params: { id }, reason: `relayer '${id}' not found` });
    return row;
  };
  const require = async (id: string, notFound?: 'RELAYER_NOT_FOUND' | 'NOT_FOUND') => found(id, await heldRows.read(id), notFound);
  const checkNotification = async (target: string | null | undefined) => {
    if (typeof target === 'string' && !(await repo.notificationExists(target))) throw new ValidationError(`'notification_id': notification '${target}' does not exist`);
  };

  return {
    async list(page, perPage) {
      const [rows, total] = await Promise.all([perPage === 0 ? [] : repo.list(perPage, (page - 1) * perPage), repo.count()]);
      return { items: rows.map(toRelayerView), pagination: { current_page: page, per_page: perPage, total_items: total } };
    },
    get: async (id) => toRelayerView(await require(id)),
    async create(input) {
      const conflict = (id: string) => new ConflictError('RELAYER_EXISTS', { reason: `a relayer with id '${id}' already exists` });
      if (input.id !== undefined && (await repo.get(input.id))) throw conflict(input.id);
      if (!networks.find(input.network_type, input.network)) {
        throw new ValidationError(`Network '${input.network}' not found for network type '${input.network_type}'. Please ensure the network configuration exists.`);
      }
      await checkNotification(input.notification_id);
      const signer = await signerService.resolve(input.signer_id, input.network_type);
      await checkSignerFree(repo, input);
      const fields = {
        id: input.id ?? randomUUID(),
        name: input.name,
        network: input.network,
        network_type: input.network_type,
        signer_id: input.signer_id,
        address: signer.address,
        policies: input.policies && Object.keys(input.policies).length ? input.policies : null,
        custom_rpc_urls: input.custom_rpc_urls ?? null,
      };
      noteWrongChecksums(logger, fields.id, fields.policies);
      const seed = { ...fields, paused: input.paused, notification_id: input.notification_id ?? null, initial_nonce: 0, seed_hash: seedHashOf(fields) };
      if (!(await repo.create(seed))) throw conflict(seed.id);
      signers.set(seed.id, signer);
      logger.info({ relayerId: seed.id, network: `${seed.network_type}:${seed.network}` }, 'relayer created');
      return toRelayerView(await require(seed.id));
    },
    async update(id, changes) {
      await require(id);
      await checkNotification(changes.notification_id);
      noteWrongChecksums(logger, id, changes.policies);
      await repo.update(id, changes);
      return toRelayerView(await require(id));
    },
    async remove(id, activeTransactions) {
      await require(id);
      if (activeTransactions > 0) {
        throw new AppError('BAD_REQUEST', {
          reason: `Cannot delete relayer '${id}' because it has ${activeTransactions} transaction(s). Please wait for all transactions to complete or cancel them before deleting the relayer.`,
        });
      }
      const removed = await repo.remove(id);
      heldRows.forget(id);
      if (!removed) throw new NotFoundError('RELAYER_NOT_FOUND', { params: { id }, reason: `relayer '${id}' not found` });
      signers.delete(id);
      logger.info({ relayerId: id }, 'relayer deleted');
    },
    require,
    requireForSend: async (id) => found(id, await heldRows.get(id)),
    rows: heldRows,
    signer(relayerId) {
      const signer = signers.get(relayerId);
      if (!signer) throw new AppError('INTERNAL', { reason: `relayer '${relayerId}' has no signer` });
      return signer;
    },
    network: (relayer) => networks.find(relayer.network_type, relayer.network)!,
    chain: (relayer) =>
      relayer.custom_rpc_urls?.length && deps.chains.evmVia ? deps.chains.evmVia(relayer.network, relayer.custom_rpc_urls) : deps.chains.evm(relayer.network),
  };
}

/** One signer per network (as the reference): two relayers sending from one account would fight over its nonces. */
async function checkSignerFree(repo: RelayersRepo, input: CreateRelayerInput): Promise<void> {
  for (const id of await repo.usingSigner(input.signer_id)) {
    const other = await repo.get(id);
    if (other && other.network === input.network && other.network_type === input.network_type) {
      throw new ValidationError(
        `Cannot create relayer: signer '${input.signer_id}' is already in use by relayer '${other.id}' on network '${input.network}'. Each signer can only be connected to one relayer per network; use a different signer or network.`,
      );
    }
  }
}

/** Seeds the config relayers (their signers resolved: a bad key stops the start) and reports drift. */
async function seedConfigRelayers(deps: RelayerServiceDeps): Promise<void> {
  const seeds = [];
  for (const r of deps.config.file.relayers) {
    noteWrongChecksums(deps.logger, r.id, r.policies as Record<string, unknown> | undefined);
    let address: string;
    try {
      address = (await deps.signers.resolve(r.signer_id, r.network_type!)).address;
    } catch (err) {
      throw new Error(`relayer '${r.id}': ${(err as { reason?: string }).reason ?? (err as Error).message}`, { cause: err });
    }
    seeds.push(seedOf(r, address));
  }
  await deps.repo.seed(seeds);
  const stored = new Map<string, RelayerRow>();
  for (const s of seeds) {
    const row = await deps.repo.get(s.id);
    if (row) stored.set(s.id, row);
  }
  reportRelayerDrift(seeds, stored, deps.logger);
}

/** whitelist_receivers addresses with a wrong EIP-55 checksum are accepted, as the reference accepts them: said in the log. */
function noteWrongChecksums(logger: Log, relayerId: string, policies: Record<string, unknown> | null | undefined): void {
  const addresses = wrongChecksumReceivers(policies);
  if (addresses.length) logger.warn({ relayerId, addresses }, 'whitelist_receivers: addresses with a wrong EIP-55 checksum; accepted, as the reference accepts them');
}

/** Every visible relayer's signer, config or API; one that cannot be resolved takes its relayer out of service. */
async function resolveStoredSigners(deps: RelayerServiceDeps, signers: Map<string, Signer>): Promise<void> {
  const total = await deps.repo.count();
  for (const row of await deps.repo.list(Math.max(total, 1), 0)) {
    try {
      signers.set(row.id, await deps.signers.resolve(row.signer_id, row.network_type));
      if (row.disabled_reason?.type === 'SignerUnavailable') await deps.repo.setSystemDisabled(row.id, null);
    } catch (err) {
      const details = (err as { reason?: string }).reason ?? (err as Error).message;
      deps.logger.error({ relayerId: row.id, reason: details }, 'relayer disabled: its signer cannot be resolved');
      await deps.repo.setSystemDisabled(row.id, { type: 'SignerUnavailable', details });
    }
  }
}
