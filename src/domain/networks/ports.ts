// What the network use cases need from storage, and from the chain adapters when RPC URLs change.
import type { NetworkType, RpcUrl } from '../types.ts';

export interface NetworkOverride {
  network_type: NetworkType;
  name: string;
  rpc_urls: RpcUrl[];
  updated_at: string;
}

/** RPC URLs set through the API, by network; they replace the config file's. */
export interface NetworkOverridesRepo {
  all(): Promise<NetworkOverride[]>;
  /** Inserts or replaces the override of one network. */
  put(override: NetworkOverride): Promise<void>;
}

/** The chain adapters' side: rebuilds the adapter of a network with new RPC URLs. */
export interface RpcUrlSwitch {
  setRpcUrls(networkType: NetworkType, name: string, urls: RpcUrl[]): void;
}
