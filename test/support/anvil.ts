// Test support: a real anvil per test file (through src/chains/evm/devnet.ts) and the chain moves lifecycle tests need.
import { concatHex, encodeAbiParameters, numberToHex, parseAbiParameters, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevnet, type Devnet } from '../../src/chains/evm/devnet.ts';
import type { NetworkConfig } from '../../src/config/config.ts';

/** anvil's default accounts #0-#2 (the publicly known Hardhat keys), 10,000 ETH each at start. */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
] as const satisfies readonly Hex[];
export const ANVIL_ADDRESSES = ANVIL_KEYS.map((k) => privateKeyToAccount(k).address);

export interface TxFields {
  to?: Hex | null;
  value?: bigint;
  data?: Hex;
  nonce?: number;
  gas?: bigint;
  /** EIP-1559 unless gasPrice is given. */
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  gasPrice?: bigint;
}

export interface TestAnvil {
  readonly url: string;
  readonly chainId: number;
  readonly devnet: Devnet;
  /** Raw JSON-RPC; throws with the node's error message (and `code`) on an error answer. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `blocks` blocks now (with whatever the pool holds). */
  mine(blocks?: number): Promise<void>;
  /** Automine off: sent transactions stay pending until mine(). */
  setAutomine(on: boolean): Promise<void>;
  /** A block every `ms` (rounded to whole seconds, anvil's unit); 0 stops interval mining. */
  setIntervalMining(ms: number): Promise<void>;
  /** The pool: pending and queued transactions by sender and nonce (txpool_content). */
  txpool(): Promise<{
    pending: Record<string, Record<string, { hash: Hex }>>;
    queued: Record<string, Record<string, { hash: Hex }>>;
  }>;
  /** Removes a pending transaction from the pool, as an eviction or a node restart would. */
  dropTransaction(hash: Hex): Promise<void>;
  /** Replaces the last `depth` blocks with empty ones (their transactions are gone). */
  reorg(depth: number): Promise<void>;
  setCode(address: Hex, code: Hex): Promise<void>;
  setNextBaseFee(wei: bigint): Promise<void>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<boolean>;
  blockNumber(): Promise<bigint>;
  /**
   * The receipt once the transaction is mined. Under automine anvil mines in the background, so a
   * receipt may lag eth_sendRawTransaction's answer by a moment. Fails after `timeoutMs`.
   */
  waitMined(hash: Hex, timeoutMs?: number): Promise<{ status: Hex; blockNumber: Hex; blockHash: Hex }>;
  pendingNonce(address: Hex): Promise<number>;
  /** A signed raw transaction from `key` (nonce: the pending one unless given). */
  signed(key: Hex, fields?: TxFields): Promise<Hex>;
  /** Signs and sends with eth_sendRawTransaction: a transaction from "somewhere else". Returns the hash. */
  sendFrom(key: Hex, fields?: TxFields): Promise<Hex>;
  /** An EVM network of the config pointing at this anvil. */
  network(name?: string, overrides?: Partial<NetworkConfig>): NetworkConfig;
  stop(): Promise<void>;
}

/**
 * Starts anvil on a free port. Call once per test file and stop it in `after`:
 * @example const anvil = await startAnvil(); after(() => anvil.stop());
 */
export async function startAnvil(
  options: { chainId?: number; blockTimeMs?: number; args?: readonly string[] } = {},
): Promise<TestAnvil> {
  const chainId = options.chainId ?? 31337;
  // args: extra anvil arguments, e.g. ['--optimism'] for anvil's OP-stack mode.
  const devnet = await startDevnet({ chainId, blockTimeMs: options.blockTimeMs, args: options.args });
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw Object.assign(new Error(`${method}: ${body.error.message}`), { code: body.error.code });
    return body.result as T;
  };
  const pendingNonce = async (address: Hex) => Number(await rpc<Hex>('eth_getTransactionCount', [address, 'pending']));
  const signed = async (key: Hex, f: TxFields = {}): Promise<Hex> => {
    const account = privateKeyToAccount(key);
    const nonce = f.nonce ?? (await pendingNonce(account.address));
    const common = {
      chainId,
      nonce,
      to: f.to === undefined ? ANVIL_ADDRESSES[2]! : f.to,
      value: f.value ?? 1n,
      data: f.data,
      gas: f.gas ?? (f.data ? 200_000n : 21_000n),
    };
    if (f.gasPrice !== undefined) return account.signTransaction({ ...common, type: 'legacy', gasPrice: f.gasPrice });
    return account.signTransaction({
      ...common,
      type: 'eip1559',
      maxFeePerGas: f.maxFeePerGas ?? 10_000_000_000n,
      maxPriorityFeePerGas: f.maxPriorityFeePerGas ?? 1_000_000_000n,
    });
  };
  return {
    url: devnet.url,
    chainId,
    devnet,
    rpc,
    mine: async (blocks = 1) => void (await rpc('anvil_mine', [numberToHex(blocks)])),
    setAutomine: async (on) => void (await rpc('evm_setAutomine', [on])),
    setIntervalMining: async (ms) => void (await rpc('evm_setIntervalMining', [Math.round(ms / 1000)])),
    txpool: () => rpc('txpool_content'),
    dropTransaction: async (hash) => void (await rpc('anvil_dropTransaction', [hash])),
    reorg: async (depth) => void (await rpc('anvil_reorg', [depth, []])),
    setCode: async (address, code) => void (await rpc('anvil_setCode', [address, code])),
    setNextBaseFee: async (wei) => void (await rpc('anvil_setNextBlockBaseFeePerGas', [numberToHex(wei)])),
    snapshot: () => rpc<Hex>('evm_snapshot'),
    revert: (snapshotId) => rpc<boolean>('evm_revert', [snapshotId]),
    blockNumber: async () => BigInt(await rpc<Hex>('eth_blockNumber')),
    async waitMined(hash, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const receipt = await rpc<{ status: Hex; blockNumber: Hex; blockHash: Hex } | null>(
          'eth_getTransactionReceipt',
          [hash],
        );
        if (receipt) return receipt;
        if (Date.now() > deadline) throw new Error(`${hash} not mined within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    pendingNonce,
    signed,
    sendFrom: async (key, fields) => rpc<Hex>('eth_sendRawTransaction', [await signed(key, fields)]),
    network: (name = 'anvil', overrides = {}) => ({
      type: 'evm',
      network: name,
      chain_id: chainId,
      required_confirmations: 1,
      symbol: 'ETH',
      average_blocktime_ms: options.blockTimeMs ?? 1000,
      features: ['eip1559'],
      rpc_urls: [{ url: devnet.url, weight: 100 }],
      ...overrides,
    }),
    stop: () => devnet.stop(),
  };
}

/** Waits until anvil's pool holds `hash` (a broadcast of it was accepted and nothing has mined it yet). */
export async function waitInPool(anvil: TestAnvil, hash: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pool = await anvil.txpool();
    if (Object.values(pool.pending).some((byNonce) => Object.values(byNonce).some((tx) => tx.hash === hash))) return;
    if (Date.now() > deadline) throw new Error(`${hash} not in the pool within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runtime bytecode that reverts every call with `data`: CODECOPY the bytes that follow the
 * 12-byte prologue into memory, then REVERT with them. Install it with `setCode`.
 */
export function revertingCode(data: Hex): Hex {
  const length = (data.length - 2) / 2;
  if (length > 255) throw new Error('revert data too long for this prologue');
  const len = toHex(length, { size: 1 }).slice(2);
  // PUSH1 len, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 len, PUSH1 0, REVERT
  return concatHex([`0x60${len}600c600039`, `0x60${len}6000fd`, data]);
}

/** Revert data of `Error(message)`, `Panic(code)` and a custom error `selector` with one uint256. */
export const revertData = {
  error: (message: string): Hex =>
    concatHex(['0x08c379a0', encodeAbiParameters(parseAbiParameters('string'), [message])]),
  panic: (code: number): Hex =>
    concatHex(['0x4e487b71', encodeAbiParameters(parseAbiParameters('uint256'), [BigInt(code)])]),
  custom: (selector: Hex, arg: bigint): Hex =>
    concatHex([selector, encodeAbiParameters(parseAbiParameters('uint256'), [arg])]),
};

/** `PUSH1 0 PUSH1 0 REVERT`: reverts with no data. */
export const BARE_REVERT: Hex = '0x60006000fd';
