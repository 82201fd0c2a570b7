// Relayer use cases: seed from config, list, get, create, update, delete, and the signer, network and chain of a relayer.
import { randomUUID } from 'node:crypto';
import type { Config, NetworkConfig } from '../../config/config.ts';
import type { Chains, EvmChain } from '../chains/ports.ts';
import type { SolanaChains } from '../chains/solana/ports.ts';
import type { StellarChains } from '../chains/stellar/ports.ts';
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
import type { LaneRow } from './ports.ts';
import { laneKey } from './lanes.ts';
import { laneRowsOf, resolvePool, signersOf } from './pools.ts';
import { laneBalanceOf, poolView } from './pool-view.ts';
import { checkFunding, fundingLaneRow, isFundingLane, resolveFunder } from './funding.ts';
import { changePool } from './pool-changes.ts';

/** POST /api/v1/relayers after validation (policies already checked for the network type). */
export interface CreateRelayerInput {
  id?: string;
  name: string;
  network: string;
  network_type: NetworkConfig['type'];
  paused: boolean;
  /** The reference's one signer; with `signer_ids` (a key pool, pools.ts) the first of them. */
  signer_id?: string;
  signer_ids?: string[];
  max_pending_per_key?: number;
  /** A key pool's funding key (funding.ts), with policies lane_min_balance and lane_target_balance. */
  funding_signer_id?: string;
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
  /** The relayer's signer, or a pool lane's by its lane key (lanes.ts). */
  signer(relayerId: string): Signer;
  /** The key of the lane that signs from `from` (the relayer's id for its first key, or when it has no pool). */
  laneKeyOf(relayerId: string, from: unknown): string;
  /** The pool's lanes (empty without a pool). */
  lanes(relayerId: string): Promise<LaneRow[]>;
  /** Whether the relayer has a key pool (no read). */
  isPool(relayerId: string): boolean;
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
  chains: Chains & Partial<SolanaChains & StellarChains>;
  networks: NetworkService;
  signers: SignerService;
  logger: Log;
  /** Solana and Stellar pools: their lanes' non-final transactions (they take no nonce: family-lanes.ts). */
  pendingByLane?: (relayerId: string) => Promise<Record<string, number>>;
}

/** Builds the service, seeds the configured relayers into the store and resolves every relayer's signer. */
export async function createRelayerService(deps: RelayerServiceDeps): Promise<RelayerService> {
  const { repo, networks, signers: signerService, logger } = deps;
  const signers = new Map<string, Signer>();
  /** Per pool relayer: its lanes' keys by lower-cased address. */
  const laneKeys = new Map<string, Map<string, string>>();
  const knowLanes = (relayerId: string, lanes: ReadonlyArray<Pick<LaneRow, 'address' | 'position'>>) => {
    if (lanes.length > 1)
      laneKeys.set(
        relayerId,
        new Map(lanes.map((l) => [l.address.toLowerCase(), laneKey(relayerId, l.address, l.position)])),
      );
  };
  await seedConfigRelayers(deps);
  await resolveStoredSigners(deps, signers, knowLanes);

  /** When each relayer without a known pool had its lanes read last (lanes()). */
  const probedAt = new Map<string, number>();
  const heldRows = createRelayerRowCache((id) => repo.get(id));
  const found = (
    id: string,
    row: RelayerRow | undefined,
    notFound: 'RELAYER_NOT_FOUND' | 'NOT_FOUND' = 'RELAYER_NOT_FOUND',
  ): RelayerRow => {
    if (!row) throw new NotFoundError(notFound, { params: { id }, reason: `relayer '${id}' not found` });
    return row;
  };
  const require = async (id: string, notFound?: 'RELAYER_NOT_FOUND' | 'NOT_FOUND') =>
    found(id, await heldRows.read(id), notFound);
  const checkNotification = async (target: string | null | undefined) => {
    if (typeof target === 'string' && !(await repo.notificationExists(target)))
      throw new ValidationError(`'notification_id': notification '${target}' does not exist`);
  };

  return {
    async list(page, perPage) {
      const [rows, total] = await Promise.all([
        perPage === 0 ? [] : repo.list(perPage, (page - 1) * perPage),
        repo.count(),
      ]);
      return {
        items: rows.map(toRelayerView),
        pagination: { current_page: page, per_page: perPage, total_items: total },
      };
    },
    get: async (id) => {
      const row = await require(id);
      const lanes = await lanesOf(id);
      if (lanes.length < 2) return toRelayerView(row);
      // Solana and Stellar sends take no nonce: their in-flight count is by `from`.
      const pending = await (row.network_type !== 'evm' && deps.pendingByLane
        ? deps.pendingByLane(id)
        : repo.lanePending(id));
      const balanceOf = laneBalanceOf(deps.chains, chainOf, row);
      const funder = lanes.filter(isFundingLane);
      return {
        ...toRelayerView(row),
        lanes: await poolView(
          lanes.filter((l) => !isFundingLane(l)),
          pending,
          balanceOf,
        ),
        ...(funder[0]
          ? { funding_signer_id: funder[0].signer_id, funding: (await poolView(funder, pending, balanceOf))[0] }
          : {}),
      };
    },
    async create(input) {
      const conflict = (id: string) =>
        new ConflictError('RELAYER_EXISTS', { reason: `a relayer with id '${id}' already exists` });
      if (input.id !== undefined && (await repo.get(input.id))) throw conflict(input.id);
      if (!networks.find(input.network_type, input.network)) {
        throw new ValidationError(
          `Network '${input.network}' not found for network type '${input.network_type}'. Please ensure the network configuration exists.`,
        );
      }
      await checkNotification(input.notification_id);
      const ids = signersOf(input, input.network_type);
      checkFunding(input, ids);
      const resolve = (signerId: string) => signerService.resolve(signerId, input.network_type);
      const pool = await resolvePool(ids, resolve, '', input.network_type);
      const signer = pool[0]!;
      const funder = input.funding_signer_id ? await resolveFunder(input.funding_signer_id, resolve, pool) : undefined;
      for (const signerId of [...ids, ...(funder ? [input.funding_signer_id!] : [])])
        await checkSignerFree(repo, { ...input, signer_id: signerId });
      const fields = {
        id: input.id ?? randomUUID(),
        name: input.name,
        network: input.network,
        network_type: input.network_type,
        signer_id: ids[0]!,
        address: signer.address,
        policies: input.policies && Object.keys(input.policies).length ? input.policies : null,
        custom_rpc_urls: input.custom_rpc_urls ?? null,
      };
      noteWrongChecksums(logger, fields.id, fields.policies);
      const seed = {
        ...fields,
        paused: input.paused,
        notification_id: input.notification_id ?? null,
        initial_nonce: 0,
        seed_hash: seedHashOf(fields),
      };
      if (!(await repo.create(seed))) throw conflict(seed.id);
      const lanes = laneRowsOf(seed.id, ids, pool, input.max_pending_per_key);
      if (funder) lanes.push(fundingLaneRow(seed.id, input.funding_signer_id!, funder));
      await repo.saveLanes(seed.id, lanes);
      signers.set(seed.id, signer);
      const keys = funder ? [...pool, funder] : pool;
      lanes.forEach((l, k) => signers.set(laneKey(seed.id, l.address, l.position), keys[k]!));
      knowLanes(seed.id, lanes);
      logger.info({ relayerId: seed.id, network: `${seed.network_type}:${seed.network}` }, 'relayer created');
      return toRelayerView(await require(seed.id));
    },
    async update(id, changes) {
      const row = await require(id);
      await checkNotification(changes.notification_id);
      noteWrongChecksums(logger, id, changes.policies);
      const { max_pending_per_key: maxPending, signer_ids, funding_signer_id, ...rest } = changes;
      const repooled = await changePool(
        {
          row,
          stored: await repo.lanes(id),
          // Solana and Stellar sends take no nonce: their in-flight count is by `from`.
          pending: () =>
            row.network_type !== 'evm' && deps.pendingByLane ? deps.pendingByLane(id) : repo.lanePending(id),
          resolve: (signerId) => signerService.resolve(signerId, row.network_type),
          checkFree: (signerId) => checkSignerFree(repo, { ...row, signer_id: signerId }),
        },
        { signer_ids, funding_signer_id, policies: rest.policies },
        maxPending,
      );
      // Refused before anything is written: the change is whole or not at all.
      if (maxPending !== undefined && !(repooled ? repooled.lanes.length > 1 : laneKeys.has(id)))
        throw new ValidationError(`'max_pending_per_key' applies to key pools only: relayer '${id}' has one signer`);
      if (repooled) {
        await repo.saveLanes(id, repooled.lanes);
        for (const [key, signer] of repooled.signers) signers.set(key, signer);
        laneKeys.delete(id);
        knowLanes(id, repooled.lanes);
        logger.info({ relayerId: id, keys: repooled.lanes.length }, 'relayer keys changed');
      }
      if (maxPending !== undefined) await repo.setMaxPending(id, maxPending);
      await repo.update(id, rest);
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
      if (!removed)
        throw new NotFoundError('RELAYER_NOT_FOUND', { params: { id }, reason: `relayer '${id}' not found` });
      signers.delete(id);
      laneKeys.delete(id);
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
    laneKeyOf: (relayerId, from) =>
      (typeof from === 'string' ? laneKeys.get(relayerId)?.get(from.toLowerCase()) : undefined) ?? relayerId,
    lanes: lanesOf,
    isPool(relayerId) {
      // Not known here as a pool: looked up in the background now and then, so a pool made elsewhere is soon used.
      if (!laneKeys.has(relayerId)) lanesOf(relayerId).catch(() => undefined);
      return laneKeys.has(relayerId);
    },
    network: (relayer) => networks.find(relayer.network_type, relayer.network)!,
    chain: chainOf,
  };
  async function lanesOf(relayerId: string): Promise<LaneRow[]> {
    // A relayer another instance made a pool (PATCH signer_ids) is found by a read now and then, not at every call.
    if (!laneKeys.has(relayerId) && Date.now() - (probedAt.get(relayerId) ?? -Infinity) < PROBE_EVERY_MS) return [];
    probedAt.set(relayerId, Date.now());
    const lanes = await repo.lanes(relayerId);
    await learnLanes(relayerId, lanes);
    return lanes;
  }
  /** Keys another instance added or dropped (PATCH signer_ids) are picked up where the lanes are read. */
  async function learnLanes(relayerId: string, lanes: readonly LaneRow[]): Promise<void> {
    const key = (l: LaneRow) => laneKey(relayerId, l.address, l.position);
    if (lanes.length < 2) return void laneKeys.delete(relayerId);
    if (laneKeys.get(relayerId)?.size === lanes.length && lanes.every((l) => signers.has(key(l)))) return;
    const networkType = (await repo.get(relayerId))?.network_type ?? 'evm';
    for (const l of lanes)
      if (!signers.has(key(l))) signers.set(key(l), await signerService.resolve(l.signer_id, networkType));
    laneKeys.delete(relayerId);
    knowLanes(relayerId, lanes);
  }
  function chainOf(relayer: RelayerRow): EvmChain {
    return relayer.custom_rpc_urls?.length && deps.chains.evmVia
      ? deps.chains.evmVia(relayer.network, relayer.custom_rpc_urls)
      : deps.chains.evm(relayer.network);
  }
}

/** A relayer not known here as a pool has its lanes read at most this often (another instance may have made it one). */
const PROBE_EVERY_MS = 5_000;

/** One signer per network (as the reference): two relayers sending from one account would fight over its nonces. */
async function checkSignerFree(
  repo: RelayersRepo,
  input: Pick<CreateRelayerInput, 'id' | 'network' | 'network_type'> & { signer_id: string },
): Promise<void> {
  for (const id of await repo.usingSigner(input.signer_id)) {
    const other = await repo.get(id);
    if (
      other &&
      other.id !== input.id &&
      other.network === input.network &&
      other.network_type === input.network_type
    ) {
      throw new ValidationError(
        `Cannot create relayer: signer '${input.signer_id}' is already in use by relayer '${other.id}' on network '${input.network}'. Each signer can only be connected to one relayer per network; use a different signer or network.`,
      );
    }
  }
}

/** Seeds the config relayers (their signers resolved: a bad key stops the start) and reports drift. */
async function seedConfigRelayers(deps: RelayerServiceDeps): Promise<void> {
  const seeds = [];
  const lanes = new Map<string, ReturnType<typeof laneRowsOf>>();
  for (const r of deps.config.file.relayers) {
    noteWrongChecksums(deps.logger, r.id, r.policies as Record<string, unknown> | undefined);
    let pool: Signer[];
    const ids = signersOf(r, r.network_type);
    try {
      pool =
        ids.length > 1
          ? await resolvePool(ids, (id) => deps.signers.resolve(id, r.network_type!), '', r.network_type)
          : [await deps.signers.resolve(ids[0]!, r.network_type!)];
    } catch (err) {
      throw new Error(`relayer '${r.id}': ${(err as { reason?: string }).reason ?? (err as Error).message}`, {
        cause: err,
      });
    }
    seeds.push(seedOf({ ...r, signer_id: ids[0]! }, pool[0]!.address));
    lanes.set(r.id, laneRowsOf(r.id, ids, pool, r.max_pending_per_key));
    if (r.funding_signer_id) {
      const funder = await resolveFunder(
        r.funding_signer_id,
        (id) => deps.signers.resolve(id, r.network_type!),
        pool,
      ).catch((err: unknown) => {
        throw new Error(`relayer '${r.id}': ${(err as { reason?: string }).reason ?? (err as Error).message}`, {
          cause: err,
        });
      });
      lanes.get(r.id)!.push(fundingLaneRow(r.id, r.funding_signer_id, funder));
    }
    // Solana and Stellar sends take no nonce: their in-flight count is by `from`.
    const pendingOf = r.network_type === 'evm' ? undefined : deps.pendingByLane;
    await refuseLaneChangesInFlight(deps.repo, r.id, pool[0]!.address, lanes.get(r.id)!, pendingOf);
  }
  await deps.repo.seed(seeds);
  const stored = new Map<string, RelayerRow>();
  for (const s of seeds) {
    const row = await deps.repo.get(s.id);
    if (row) stored.set(s.id, row);
    // A config relayer's lanes follow its entry (none without a pool); an API relayer with its id keeps its own.
    if (row?.source === 'config') await deps.repo.saveLanes(s.id, lanes.get(s.id) ?? []);
  }
  reportRelayerDrift(seeds, stored, deps.logger);
}

/**
 * An edited `signer_ids` may drop a key, or change which key is first (whose transactions are the relayer row's
 * lane): refused at start while the lanes it changes have transactions in flight, which nothing would track or sign.
 */
async function refuseLaneChangesInFlight(
  repo: RelayersRepo,
  relayerId: string,
  firstAddress: string,
  next: ReadonlyArray<Pick<LaneRow, 'address' | 'position'>>,
  pendingOf?: (relayerId: string) => Promise<Record<string, number>>,
): Promise<void> {
  const stored = await repo.lanes(relayerId);
  if (stored.length === 0) return;
  const row = await repo.get(relayerId);
  if (row?.source === 'api') return;
  const pending = await (pendingOf ? pendingOf(relayerId) : repo.lanePending(relayerId));
  for (const lane of stored) {
    const kept =
      next.find((n) => n.address === lane.address) ??
      (next.length === 0 && lane.address === firstAddress ? { position: 0 } : undefined);
    if (kept && (kept.position === 0) === (lane.position === 0)) continue;
    const inFlight = pending[lane.position === 0 ? '' : lane.address] ?? 0;
    if (inFlight > 0) {
      throw new Error(
        `relayer '${relayerId}': key ${lane.address} (signer '${lane.signer_id}') has ${inFlight} transaction(s) in flight; ${isFundingLane(lane) ? 'keep it as funding_signer_id' : 'keep it in signer_ids, in the same place if it is the first,'} until they are final`,
      );
    }
  }
}

/** whitelist_receivers addresses with a wrong EIP-55 checksum are accepted, as the reference accepts them: said in the log. */
function noteWrongChecksums(
  logger: Log,
  relayerId: string,
  policies: Record<string, unknown> | null | undefined,
): void {
  const addresses = wrongChecksumReceivers(policies);
  if (addresses.length)
    logger.warn(
      { relayerId, addresses },
      'whitelist_receivers: addresses with a wrong EIP-55 checksum; accepted, as the reference accepts them',
    );
}

/** Every visible relayer's signer, config or API; one that cannot be resolved takes its relayer out of service. */
async function resolveStoredSigners(
  deps: RelayerServiceDeps,
  signers: Map<string, Signer>,
  knowLanes: (relayerId: string, lanes: LaneRow[]) => void,
): Promise<void> {
  const total = await deps.repo.count();
  for (const row of await deps.repo.list(Math.max(total, 1), 0)) {
    try {
      signers.set(row.id, await deps.signers.resolve(row.signer_id, row.network_type));
      // A pool's other keys, each under its lane's key.
      const lanes = await deps.repo.lanes(row.id);
      for (const l of lanes)
        if (l.position !== 0)
          signers.set(
            laneKey(row.id, l.address, l.position),
            await deps.signers.resolve(l.signer_id, row.network_type),
          );
      knowLanes(row.id, lanes);
      if (row.disabled_reason?.type === 'SignerUnavailable') await deps.repo.setSystemDisabled(row.id, null);
    } catch (err) {
      const details = (err as { reason?: string }).reason ?? (err as Error).message;
      deps.logger.error({ relayerId: row.id, reason: details }, 'relayer disabled: its signer cannot be resolved');
      await deps.repo.setSystemDisabled(row.id, { type: 'SignerUnavailable', details });
    }
  }
}
