// The services behind the management routes that the relayer operations also use: networks (RPC URLs changeable at
// run time) and signers. Built once at start, after the chain adapters.
import type { Config, NetworkConfig } from '../config/config.ts';
import type { Store } from './ports.ts';
import type { Log } from './log.ts';
import type { SecretBox } from './secret-box.ts';
import type { RpcUrlSwitch } from './networks/ports.ts';
import type { SignerResolver } from './signers/ports.ts';
import { createNetworkService, type NetworkService } from './networks/service.ts';
import { createSignerService, type SignerService } from './signers/service.ts';
import { sealSecretsAtRest } from './secrets-at-rest.ts';

export interface ManagementServices {
  networks: NetworkService;
  signers: SignerService;
}

/** `networks`: the config file's, with the stored RPC URL changes applied (see applyNetworkOverrides). */
export async function createManagementServices(deps: {
  store: Store;
  config: Config;
  networks: readonly NetworkConfig[];
  chains: RpcUrlSwitch;
  secrets: SecretBox;
  logger: Log;
  /** The signer adapters, built by the composition root. */
  resolveSigner: SignerResolver;
}): Promise<ManagementServices> {
  const { repos } = deps.store;
  // Before anything opens a stored secret: all of them sealed under the current storage key (or the start refused).
  await sealSecretsAtRest({ store: deps.store, secrets: deps.secrets, logger: deps.logger });
  const networks = createNetworkService({
    networks: deps.networks,
    repo: repos.networkOverrides,
    chains: deps.chains,
    logger: deps.logger,
  });
  const signers = await createSignerService({
    repo: repos.signers,
    relayers: repos.relayers,
    signers: deps.config.file.signers,
    secrets: deps.secrets,
    resolveSigner: deps.resolveSigner,
    logger: deps.logger,
    signTimeoutMs: deps.config.signerTimeoutMs,
  });
  return { networks, signers };
}
