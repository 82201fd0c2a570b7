// The chaos suite's chain: a real anvil mining a block a second, behind a fault proxy (the URL the service knows),
// that can be killed with SIGKILL and started again on the state it saved, and read back block by block at the end.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { numberToHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevnet, type Devnet } from '../../src/chains/evm/devnet.ts';
import { startAnvil } from '../support/anvil.ts';
import { startSequencerProxy, type SequencerProxy } from '../support/sequencer-proxy.ts';

export const CHAIN_ID = 31337;
export const BLOCK_MS = 1000;

export interface ChaosChain {
  /** What the service's RPC URLs forward to: anvil, or the sequencer in front of it. */
  url(): string;
  /** The no-mempool sequencer, when the chain is one. */
  sequencer?: SequencerProxy;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** SIGKILL to anvil (its whole process group): nothing is saved beyond its last periodic dump. */
  kill(): Promise<void>;
  /** Starts anvil again on the saved state; returns its new URL. */
  restart(): Promise<string>;
  setNextBaseFee(wei: bigint): Promise<void>;
  nonce(address: Hex, tag: 'latest' | 'pending'): Promise<number>;
  /** Signs and sends from `key` with the node's pending nonce, as another holder of the key would. */
  sendRaw(key: Hex, fields: { to: Hex; value: bigint; maxFeePerGas: bigint }): Promise<Hex>;
  stop(): Promise<void>;
}

function rpcTo(url: () => string) {
  let id = 0;
  return async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw Object.assign(new Error(`${method}: ${body.error.message}`), { code: body.error.code });
    return body.result as T;
  };
}

/**
 * A rollup-like chain: anvil behind test/support/sequencer-proxy.ts (no pending pool, nonce gaps refused, a block per
 * accepted transaction). Kill, restart and base-fee moves are not part of its scenario.
 */
export async function startSequencerChain(): Promise<ChaosChain> {
  const anvil = await startAnvil({ chainId: CHAIN_ID });
  const sequencer = await startSequencerProxy(anvil);
  const rpc = rpcTo(() => anvil.url);
  const unsupported = () => Promise.reject(new Error('not on the sequencer chain'));
  return {
    url: () => sequencer.url,
    sequencer,
    rpc,
    kill: unsupported,
    restart: unsupported,
    setNextBaseFee: unsupported,
    nonce: async (address, tag) => Number(await rpc<Hex>('eth_getTransactionCount', [address, tag])),
    sendRaw: unsupported,
    async stop() {
      await sequencer.close();
      await anvil.stop();
    },
  };
}

/** `persist`: anvil saves its state every second (--state-interval), so a SIGKILL loses at most about a second. */
export async function startChain(options: { persist?: boolean } = {}): Promise<ChaosChain> {
  const stateFile = options.persist
    ? path.join(mkdtempSync(path.join(tmpdir(), 'relaybox-chaos-anvil-')), 'state.json')
    : undefined;
  const args = stateFile ? ['--state', stateFile, '--state-interval', '1'] : [];
  const launch = () => startDevnet({ chainId: CHAIN_ID, blockTimeMs: BLOCK_MS, args });
  let devnet: Devnet = await launch();
  const rpc = rpcTo(() => devnet.url);
  const nonce = async (address: Hex, tag: 'latest' | 'pending') =>
    Number(await rpc<Hex>('eth_getTransactionCount', [address, tag]));
  return {
    url: () => devnet.url,
    rpc,
    async kill() {
      process.kill(-devnet.pid, 'SIGKILL');
      await devnet.stop();
    },
    async restart() {
      devnet = await launch();
      return devnet.url;
    },
    setNextBaseFee: async (wei) => void (await rpc('anvil_setNextBlockBaseFeePerGas', [numberToHex(wei)])),
    nonce,
    async sendRaw(key, fields) {
      const account = privateKeyToAccount(key);
      const raw = await account.signTransaction({
        chainId: CHAIN_ID,
        type: 'eip1559',
        nonce: await nonce(account.address, 'pending'),
        to: fields.to,
        value: fields.value,
        gas: 21_000n,
        maxFeePerGas: fields.maxFeePerGas,
        maxPriorityFeePerGas: fields.maxFeePerGas / 2n,
      });
      return rpc<Hex>('eth_sendRawTransaction', [raw]);
    },
    stop: () => devnet.stop(),
  };
}

export interface MinedTx {
  hash: Hex;
  nonce: number;
  to: Hex | null;
  value: bigint;
  block: number;
  /** Receipt status: 1 applied, 0 reverted. */
  status: number;
}

interface RpcBlock {
  transactions: Array<{ hash: Hex; from: Hex; nonce: Hex; to: Hex | null; value: Hex }>;
}

/** Every transaction `from` sent that is on the chain now, block 0 to the head, with its receipt status. */
export async function minedFrom(chain: ChaosChain, from: Hex): Promise<MinedTx[]> {
  const head = Number(await chain.rpc<Hex>('eth_blockNumber'));
  const found: MinedTx[] = [];
  const wanted = from.toLowerCase();
  const PARALLEL = 8;
  for (let start = 0; start <= head; start += PARALLEL) {
    const numbers = Array.from({ length: Math.min(PARALLEL, head - start + 1) }, (_, i) => start + i);
    const blocks = await Promise.all(
      numbers.map((n) => chain.rpc<RpcBlock>('eth_getBlockByNumber', [numberToHex(n), true])),
    );
    const receipts = await Promise.all(
      numbers.map((n, i) =>
        blocks[i]!.transactions.some((t) => t.from.toLowerCase() === wanted)
          ? chain.rpc<Array<{ transactionHash: Hex; status: Hex }>>('eth_getBlockReceipts', [numberToHex(n)])
          : [],
      ),
    );
    blocks.forEach((block, i) => {
      const statusOf = new Map(receipts[i]!.map((r) => [r.transactionHash.toLowerCase(), Number(r.status)]));
      for (const t of block.transactions) {
        if (t.from.toLowerCase() !== wanted) continue;
        found.push({
          hash: t.hash.toLowerCase() as Hex,
          nonce: Number(t.nonce),
          to: t.to,
          value: BigInt(t.value),
          block: numbers[i]!,
          status: statusOf.get(t.hash.toLowerCase()) ?? -1,
        });
      }
    });
  }
  return found;
}
