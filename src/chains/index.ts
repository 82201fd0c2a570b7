// The configured networks' chain adapters: starts the devnets the config asks for, builds one adapter per EVM network, checks chain ids.
import type { Logger } from 'pino';
import type { ConfigFile, EvmNetworkConfig } from '../config.ts';
import { DEFAULT_RPC_WEIGHT } from '../config-networks.ts';
import type { Chains, EvmChain, RpcUrlHealth } from '../domain/chains/ports.ts';
import { ChainIdMismatchError, createEvmChain, type RpcSettings } from './evm/adapter.ts';
import { startDevnet, type Devnet } from './evm/devnet.ts';
import type { RpcObserver } from './evm/rpc-transport.ts';

export interface ChainRegistry extends Chains {
  /** The devnets started for `devnet` networks, by network name. */
  readonly devnets: ReadonlyMap<string, Devnet>;
  /** Every EVM network's RPC URL health, by network name. */
  health(): Record<string, RpcUrlHealth[]>;
  /** Stops the devnets. */
  close(): Promise<void>;
}

export interface StartChainsOptions {
  logger: Logger;
  observer?: RpcObserver | undefined;
  rpc?: Partial<RpcSettings> | undefined;
  /** Longest wait for a node's chain id at start; a node that has not answered by then is checked again before its first broadcast. */
  checkTimeoutMs?: number | undefined;
}

async function startDevnets(networks: EvmNetworkConfig[], logger: Logger): Promise<Map<string, Devnet>> {
  const devnets = new Map<string, Devnet>();
  try {
    for (const n of networks) {
      if (!n.devnet) continue;
      const devnet = await startDevnet({ chainId: n.chain_id, blockTimeMs: n.devnet.block_time_ms, port: n.devnet.port });
      devnets.set(n.network, devnet);
      logger.info({ network: n.network, url: devnet.url, chainId: n.chain_id, blockTimeMs: n.devnet.block_time_ms ?? 'automine' }, 'devnet started (anvil)');
    }
  } catch (err) {
    await Promise.all([...devnets.values()].map((d) => d.stop()));
    throw new Error(`cannot start the devnet: ${(err as Error).message}`, { cause: err });
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
        if (outcome === 'late') logger.warn({ network: chain.network }, 'network RPC did not answer eth_chainId at start; checked again before the first broadcast');
      } catch (err) {
        if (err instanceof ChainIdMismatchError) throw new Error(err.reason, { cause: err });
        logger.warn({ network: chain.network, reason: (err as { reason?: string }).reason }, 'network RPC unreachable at start; checked again before the first broadcast');
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

export async function startChains(file: ConfigFile, options: StartChainsOptions): Promise<ChainRegistry> {
  const evmNetworks = file.networks.filter((n): n is EvmNetworkConfig => n.type === 'evm');
  const devnets = await startDevnets(evmNetworks, options.logger);
  const close = async () => {
    await Promise.all([...devnets.values()].map((d) => d.stop()));
  };
  const chains = new Map<string, EvmChain>();
  for (const n of evmNetworks) {
    const devnet = devnets.get(n.network);
    const network: EvmNetworkConfig = devnet ? { ...n, rpc_urls: [{ url: devnet.url, weight: DEFAULT_RPC_WEIGHT }] } : n;
    chains.set(n.network, createEvmChain(network, { rpc: options.rpc, observer: options.observer }));
  }
  const used = new Set(file.relayers.filter((r) => r.network_type === 'evm').map((r) => r.network));
  try {
    await checkChainIds([...chains.values()].filter((c) => used.has(c.network)), options.checkTimeoutMs ?? 3_000, options.logger);
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
    health: () => Object.fromEntries([...chains].map(([name, chain]) => [name, chain.health()])),
    close,
  };
}
