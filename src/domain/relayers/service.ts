// Relayer use cases: seed from config, list, get, update (paused, notification_id), and signer lookup.
import type { Config, NetworkConfig } from '../../config.ts';
import type { Chains, EvmChain } from '../chains/ports.ts';
import { AppError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Page, RelayerView } from '../types.ts';
import type { RelayerRow, RelayerSeed, RelayersRepo } from './ports.ts';
import { resolveSigner, type ResolvedSigner } from './signers.ts';

export interface RelayerService {
  list(page: number, perPage: number): Promise<Page<RelayerView>>;
  get(id: string): Promise<RelayerView>;
  update(id: string, changes: { paused?: boolean; notification_id?: string | null }): Promise<RelayerView>;
  /** The relayer row, or a 404 with the given catalogue code (replace asks for plain `Not found`). */
  require(id: string, notFound?: 'RELAYER_NOT_FOUND' | 'NOT_FOUND'): Promise<RelayerRow>;
  signer(relayerId: string): ResolvedSigner;
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
  address: r.address,
  notification_id: r.notification_id,
});

/** Builds the service and seeds the configured relayers into the store. */
export async function createRelayerService(deps: { repo: RelayersRepo; config: Config; env: NodeJS.ProcessEnv; chains: Chains }): Promise<RelayerService> {
  const { repo, config } = deps;
  // Names are unique per network type only; the config load filled in every relayer's network_type.
  const networkKey = (type: string, name: string) => `${type}:${name}`;
  const networks = new Map(config.file.networks.map((n) => [networkKey(n.type, n.network), n]));
  const signerConfigs = new Map(config.file.signers.map((s) => [s.id, s]));
  const signers = new Map<string, ResolvedSigner>();
  const seeds: RelayerSeed[] = config.file.relayers.map((r) => {
    const network = networks.get(networkKey(r.network_type!, r.network))!;
    const signer = resolveSigner(signerConfigs.get(r.signer_id)!, network.type, deps.env);
    signers.set(r.id, signer);
    return {
      id: r.id,
      name: r.name,
      network: r.network,
      network_type: network.type,
      signer_id: r.signer_id,
      address: signer.address,
      paused: r.paused ?? false,
      notification_id: r.notification_id ?? null,
      initial_nonce: r.initial_nonce ?? 0,
    };
  });
  await repo.seed(seeds);

  const require = async (id: string, notFound: 'RELAYER_NOT_FOUND' | 'NOT_FOUND' = 'RELAYER_NOT_FOUND'): Promise<RelayerRow> => {
    const row = await repo.get(id);
    if (!row) throw new NotFoundError(notFound, { params: { id }, reason: `relayer '${id}' not found` });
    return row;
  };

  return {
    async list(page, perPage) {
      const [rows, total] = await Promise.all([perPage === 0 ? [] : repo.list(perPage, (page - 1) * perPage), repo.count()]);
      return { items: rows.map(toRelayerView), pagination: { current_page: page, per_page: perPage, total_items: total } };
    },
    get: async (id) => toRelayerView(await require(id)),
    async update(id, changes) {
      await require(id);
      const target = changes.notification_id;
      if (typeof target === 'string' && !(await repo.notificationExists(target))) {
        throw new ValidationError(`'notification_id': notification '${target}' does not exist`);
      }
      await repo.update(id, changes);
      return toRelayerView(await require(id));
    },
    require,
    signer(relayerId) {
      const signer = signers.get(relayerId);
      if (!signer) throw new AppError('INTERNAL', { reason: `relayer '${relayerId}' has no signer` });
      return signer;
    },
    network: (relayer) => networks.get(networkKey(relayer.network_type, relayer.network))!,
    chain: (relayer) => deps.chains.evm(relayer.network),
  };
}
