// The configured networks' chain adapters: starts the devnets the config asks for, builds one adapter per network (EVM, Solana, Stellar), checks chain ids and passphrases.
import type { Logger } from 'pino';
import type { ConfigFile, EvmNetworkConfig, NetworkConfig } from '../config/config.ts';
import { DEFAULT_RPC_WEIGHT } from '../config/networks.ts';
import type { Chains, EvmChain, RpcUrlHealth } from '../domain/chains/ports.ts';
import type { SolanaChain, SolanaChains } from '../domain/chains/solana/ports.ts';
import type { StellarChain, StellarChains } from '../domain/chains/stellar/ports.ts';
import type { RpcUrlSwitch } from '../domain/networks/ports.ts';
import { ChainIdMismatchError, createEvmChain } from './evm/adapter.ts';
import { startDevnet, type Devnet } from './evm/devnet.ts';
import type { RpcObserver, RpcSettings } from './rpc-options.ts';
import type { createSolanaChain } from './solana/adapter.ts';
import type { createStellarChain, NetworkPassphraseMismatchError } from './stellar/adapter.ts';
import { createRpcUrlPolicy, type RpcUrlGuardOptions } from './url-policy.ts';

export interface ChainRegistry extends Chains, SolanaChains, StellarChains, RpcUrlSwitch {
  /** The devnets started for `devnet` networks, by network name. */
  readonly devnets: ReadonlyMap<string, Devnet>;
  /** Every network's RPC URL health, by network name (`solana:`/`stellar:` before a name an EVM network also uses). */
  health(): Record<string, RpcUrlHealth[]>;
  /** Refuses (VALIDATION_FAILED, naming the host and the rule) RPC URLs given through the API that the guard does not allow. */
  checkRpcUrls(urls: ReadonlyArray<{ url: string }>, field: string): Promise<void>;
  /** Stops the devnets. */
  close(): Promise<void>;
}

export interface StartChainsOptions {
  logger: Logger;
  observer?: RpcObserver | undefined;
  rpc?: Partial<RpcSettings> | undefined;
  /** Longest wait for a node's chain id at start; a node that has not answered by then is checked again before its first broadcast. */
  checkTimeoutMs?: number | undefined;
  /**
   * RPC URLs not in `configFile` (nor a devnet's) came through the API: they are checked against these settings
   * when given and at every connection. Unset: no URL is guarded.
   */
  guard?: RpcUrlGuardOptions | undefined;
  /** Jupiter's API for Solana fee-token prices and swaps (JUPITER_API_URL); the reference's public URL when unset. */
  jupiterUrl?: string | undefined;
}

async function startDevnets(networks: EvmNetworkConfig[], logger: Logger): Promise<Map<string, Devnet>> {
  const devnets = new Map<string, Devnet>();
  let starting = '';
  try {
    for (const n of networks) {
      if (!n.devnet) continue;
      starting = n.network;
      const devnet = await startDevnet({
        chainId: n.chain_id,
        blockTimeMs: n.devnet.block_time_ms,
        port: n.devnet.port,
      });
      devnets.set(n.network, devnet);
      logger.info(
        { network: n.network, url: devnet.url, chainId: n.chain_id, blockTimeMs: n.devnet.block_time_ms ?? 'automine' },
        'devnet started (anvil)',
      );
    }
  } catch (err) {
    await Promise.all([...devnets.values()].map((d) => d.stop()));
    throw new Error(`network '${starting}': cannot start the devnet: ${(err as Error).message}`, { cause: err });
  }
  return devnets;
}

/**
 * Chain ids of the networks relayers use, checked now: a mismatch stops the start (signing for the
 * wrong chain is never right); a node that does not answer in time is only logged.
 */
async function checkChainIds(chains: EvmChain[], timeoutMs: number, logger: Logger): Promise<void> {
  await Promise.all(
    chains.map(async (chain) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
      try {
        const outcome = await Promise.race([chain.checkChainId(), late]);
        if (outcome === 'late')
          logger.warn(
            { network: chain.network },
            'network RPC did not answer eth_chainId at start; checked again before the first broadcast',
          );
      } catch (err) {
        if (err instanceof ChainIdMismatchError) throw new Error(err.reason, { cause: err });
        logger.warn(
          { network: chain.network, reason: (err as { reason?: string }).reason },
          'network RPC unreachable at start; checked again before the first broadcast',
        );
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

/**
 * Stellar passphrases of the networks relayers use, checked in the background: a transaction signed
 * for another passphrase is only invalid there (the passphrase is in its hash), and every submit checks
 * again and refuses on a mismatch, so the start does not wait for remote RPCs.
 */
function checkPassphrases(
  chains: StellarChain[],
  logger: Logger,
  Mismatch: typeof NetworkPassphraseMismatchError,
): void {
  for (const chain of chains) {
    chain.checkNetwork().catch((err: unknown) => {
      if (err instanceof Mismatch)
        logger.error(
          { network: chain.network, reason: err.reason },
          'Stellar network passphrase mismatch: submits to this network are refused',
        );
      else
        logger.warn(
          { network: chain.network, reason: (err as { reason?: string }).reason },
          'Stellar RPC unreachable at start; checked again before the first submit',
        );
    });
  }
}

/** The adapter modules of the families the config uses (measured: @solana/kit and its programs are ~3 MiB resident). */
async function loadFamilies(solana: boolean, stellar: boolean) {
  const [solanaModule, stellarModule] = await Promise.all([
    solana ? import('./solana/adapter.ts') : undefined,
    stellar ? import('./stellar/adapter.ts') : undefined,
  ]);
  return { solana: solanaModule, stellar: stellarModule };
}

export async function startChains(file: ConfigFile, options: StartChainsOptions): Promise<ChainRegistry> {
  const evmNetworks = file.networks.filter((n): n is EvmNetworkConfig => n.type === 'evm');
  const devnets = await startDevnets(evmNetworks, options.logger);
  const policy = createRpcUrlPolicy(
    options.guard,
    [...devnets.values()].map((d) => d.url),
  );
  const close = async () => {
    await Promise.all([...devnets.values()].map((d) => d.stop()));
    await policy.close();
  };
  const rpc = { rpc: options.rpc, observer: options.observer, fetchFor: policy.fetchFor };
  const chains = new Map<string, EvmChain>();
  /** Adapters for relayers' custom_rpc_urls, by network and URL list. */
  const custom = new Map<string, EvmChain>();
  for (const n of evmNetworks) {
    const devnet = devnets.get(n.network);
    const network: EvmNetworkConfig = devnet
      ? { ...n, rpc_urls: [{ url: devnet.url, weight: DEFAULT_RPC_WEIGHT }] }
      : n;
    chains.set(n.network, createEvmChain(network, rpc));
  }
  const ofType = (type: NetworkConfig['type']) => file.networks.filter((n) => n.type === type);
  // The Solana and Stellar adapters (and @solana/kit with them) load only when the config has a network of that family;
  // setRpcUrls only changes configured networks, so a family absent now never needs its adapter.
  const families = await loadFamilies(ofType('solana').length > 0, ofType('stellar').length > 0);
  const solanaOptions = { ...rpc, jupiterUrl: options.jupiterUrl };
  const createSolana: typeof createSolanaChain = (n, o) => families.solana!.createSolanaChain(n, o);
  const createStellar: typeof createStellarChain = (n, o) => families.stellar!.createStellarChain(n, o);
  const solana = new Map<string, SolanaChain>(ofType('solana').map((n) => [n.network, createSolana(n, solanaOptions)]));
  const stellar = new Map<string, StellarChain>(ofType('stellar').map((n) => [n.network, createStellar(n, rpc)]));
  const used = (type: NetworkConfig['type']) =>
    new Set(file.relayers.filter((r) => r.network_type === type).map((r) => r.network));
  if (families.stellar)
    checkPassphrases(
      [...stellar.values()].filter((c) => used('stellar').has(c.network)),
      options.logger,
      families.stellar.NetworkPassphraseMismatchError,
    );
  try {
    await checkChainIds(
      [...chains.values()].filter((c) => used('evm').has(c.network)),
      options.checkTimeoutMs ?? 3_000,
      options.logger,
    );
  } catch (err) {
    await close();
    throw err;
  }
  return {
    devnets,
    evm(name) {
      const chain = chains.get(name);
      if (!chain) throw new Error(`no EVM network named '${name}'`);
      return chain;
    },
    solana(name) {
      const chain = solana.get(name);
      if (!chain) throw new Error(`no Solana network named '${name}'`);
      return chain;
    },
    stellar(name) {
      const chain = stellar.get(name);
      if (!chain) throw new Error(`no Stellar network named '${name}'`);
      return chain;
    },
    evmVia(name, urls) {
      const key = `${name}\0${JSON.stringify(urls)}`;
      let chain = custom.get(key);
      if (!chain) {
        const network = evmNetworks.find((n) => n.network === name);
        if (!network) throw new Error(`no EVM network named '${name}'`);
        chain = createEvmChain({ ...network, rpc_urls: urls.map((u) => ({ ...u })) }, rpc);
        custom.set(key, chain);
      }
      return chain;
    },
    // A changed network gets a new adapter (its own RPC pool and health); calls in flight finish on the old one.
    setRpcUrls(type, name, urls) {
      const network = file.networks.find((n) => n.type === type && n.network === name);
      if (!network) throw new Error(`no ${type} network named '${name}'`);
      const changed = { ...network, rpc_urls: urls.map((u) => ({ ...u })) };
      if (type === 'evm') chains.set(name, createEvmChain(changed as EvmNetworkConfig, rpc));
      else if (type === 'solana') solana.set(name, createSolana(changed, solanaOptions));
      else stellar.set(name, createStellar(changed, rpc));
    },
    health() {
      const key = (type: string, name: string) => (chains.has(name) ? `${type}:${name}` : name);
      return Object.fromEntries([
        ...[...chains].map(([name, chain]) => [name, chain.health()]),
        ...[...solana].map(([name, chain]) => [key('solana', name), chain.health()]),
        ...[...stellar].map(([name, chain]) => [key('stellar', name), chain.health()]),
      ]);
    },
    checkRpcUrls: policy.checkRpcUrls,
    close,
  };
}
