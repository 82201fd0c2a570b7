// The EVM chain adapter: the EvmChain port over a viem public client and the failover transport.
import {
  createPublicClient,
  getAddress,
  hexToBigInt,
  hexToNumber,
  keccak256,
  numberToHex,
  type Hex,
  type PublicClient,
} from 'viem';
import type { EvmNetworkConfig } from '../../config/config.ts';
import { AppError } from '../../errors.ts';
import type {
  BroadcastOutcome,
  CallRequest,
  ChainTransactionContent,
  EvmChain,
  FeeSuggestions,
  GasEstimate,
  RawRpcAnswer,
  Receipt,
  RevertReason,
} from '../../domain/chains/ports.ts';
import { createRpcTransport, type UrlSender } from './rpc-transport.ts';
import { RPC_DEFAULTS, type FetchFor, type RpcObserver, type RpcSettings } from '../rpc-options.ts';
import { classifyBroadcast, isNodeAnswer, nodeError, nodeMessage, revertData, rpcCode } from './rpc-errors.ts';
import { eip1559Suggestions, HISTORY_BLOCKS, legacySuggestions, REWARD_PERCENTILES } from './fees.ts';
import { decodeRevert } from './revert.ts';
import { readL1Fee } from './l1-fee.ts';

export interface EvmChainOptions {
  rpc?: Partial<RpcSettings> | undefined;
  observer?: RpcObserver | undefined;
  fetchFor?: FetchFor | undefined;
}

/** The node serves another chain than the config names: nothing may be signed or sent for this network. */
export class ChainIdMismatchError extends AppError {
  constructor(network: string, configured: number, answered: number) {
    super('CHAIN_UNAVAILABLE', {
      reason: `network '${network}' is configured with chain_id ${configured}, but its RPC answers chain id ${answered}`,
    });
  }
}

// Node answers as JSON: quantities are hex strings.
interface RawTransaction {
  hash: Hex;
  from: Hex;
  to: Hex | null;
  nonce: Hex;
  input: Hex;
  value: Hex;
  gas: Hex;
  blockNumber: Hex | null;
  blockHash: Hex | null;
  gasPrice?: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
}

/** Legacy transactions carry gasPrice only; EIP-1559 ones both caps (a node also reports their effective gasPrice). */
function contentOf(tx: RawTransaction): ChainTransactionContent {
  const eip1559 = tx.maxFeePerGas !== undefined && tx.maxPriorityFeePerGas !== undefined;
  return {
    to: tx.to ? getAddress(tx.to) : null, // EIP-55, as records keep addresses
    input: tx.input,
    value: hexToBigInt(tx.value),
    gas: hexToBigInt(tx.gas),
    gasPrice: !eip1559 && tx.gasPrice ? hexToBigInt(tx.gasPrice) : null,
    maxFeePerGas: eip1559 ? hexToBigInt(tx.maxFeePerGas!) : null,
    maxPriorityFeePerGas: eip1559 ? hexToBigInt(tx.maxPriorityFeePerGas!) : null,
  };
}

interface RawReceipt {
  transactionHash: Hex;
  from?: Hex;
  status: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  gasUsed: Hex;
  effectiveGasPrice?: Hex;
}

/** What every call needs: the client, and reads that turn failures into CHAIN_UNAVAILABLE naming the network. */
interface Rpc {
  client: PublicClient;
  /** For broadcasts: `client` itself, or one that batches the requests of a turn (the network's `rpc_batch`). */
  broadcaster: PublicClient;
  read<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** Raw JSON-RPC, where viem's action would throw on "not found" instead of answering null. */
  raw<T>(method: string, params: unknown[]): Promise<T | null>;
  unavailable(what: string, err: unknown): AppError;
}

function createRpc(name: string, client: PublicClient, broadcaster: PublicClient): Rpc {
  // No `cause`: viem's error texts name the URL, which may carry an API key, and 5xx causes are logged.
  const unavailable = (what: string, err: unknown) =>
    new AppError('CHAIN_UNAVAILABLE', { reason: `network '${name}': ${what} failed: ${nodeMessage(err)}` });
  const read = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw unavailable(what, err);
    }
  };
  return {
    client,
    broadcaster,
    read,
    unavailable,
    raw: (method, params) => read(method, () => client.request({ method, params } as never)),
  };
}

/** Fee suggestions are reused this long: a fraction of a block, or the network's gas_price_cache setting. */
function feeCacheMs(network: EvmNetworkConfig): number {
  const cache = network.gas_price_cache;
  if (cache?.enabled) return cache.stale_after_ms ?? 20_000;
  return Math.min(Math.max(network.average_blocktime_ms / 2, 250), 6_000);
}

/** Suggestions from the node, shared by concurrent callers and reused for `cacheMs`; a failure is not kept. */
function createFees(rpc: Rpc, eip1559: boolean, cacheMs: number): () => Promise<FeeSuggestions> {
  const { client, read, raw } = rpc;
  const fetchFees = async (): Promise<FeeSuggestions> => {
    if (!eip1559) return legacySuggestions(await read('eth_gasPrice', () => client.getGasPrice()));
    const [history, nodeTip] = await Promise.all([
      read('eth_feeHistory', () =>
        client.getFeeHistory({ blockCount: HISTORY_BLOCKS, rewardPercentiles: REWARD_PERCENTILES, blockTag: 'latest' }),
      ),
      // Only a fallback for blocks without tips; a node that lacks the method still prices from history.
      raw<Hex>('eth_maxPriorityFeePerGas', []).then(
        (tip) => (tip ? hexToBigInt(tip) : 0n),
        () => 0n,
      ),
    ]);
    return eip1559Suggestions(history, nodeTip);
  };
  let cached: { at: number; value: Promise<FeeSuggestions> } | undefined;
  return () => {
    const now = Date.now();
    if (cached && now - cached.at < cacheMs) return cached.value;
    const entry = (cached = { at: now, value: fetchFees() });
    entry.value.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return entry.value;
  };
}

/** What one node (or the failover over all of them) answered to one eth_sendRawTransaction. */
async function broadcastVia(client: PublicClient, rpc: Rpc, serialized: Hex, hash: Hex): Promise<BroadcastOutcome> {
  const submitted = (alreadyKnown: boolean): BroadcastOutcome => ({ status: 'submitted', hash, alreadyKnown });
  try {
    await client.sendRawTransaction({ serializedTransaction: serialized });
    return submitted(false);
  } catch (err) {
    const message = nodeMessage(err);
    const kind = classifyBroadcast(message);
    if (kind === 'already_known') return submitted(true);
    if (kind === 'other' && !isNodeAnswer(err)) return { status: 'unavailable', message };
    // The pool (or the chain) may hold this very transaction: then it was submitted, not refused.
    if (kind === 'replacement_underpriced' || kind === 'nonce_too_low') {
      const known = await rpc.raw<RawTransaction>('eth_getTransactionByHash', [hash]).catch(() => null);
      if (known) return submitted(true);
    }
    return { status: 'rejected', reason: kind, message, code: rpcCode(err) ?? null };
  }
}

/** A URL caught accepting what its node never received takes no broadcast for this long (reads still go to it). */
const DISTRUST_MS = 10 * 60_000;
/** Hashes remembered with the URLs that accepted them (the oldest forgotten first). */
const ACCEPTED_KEPT = 20_000;

/** Several answers to one broadcast: taken if any node took it; else the first refusal; else unavailable. */
function combine(answers: BroadcastOutcome[], hash: Hex): BroadcastOutcome {
  const taken = answers.filter((a) => a.status === 'submitted');
  if (taken.length > 0) return { status: 'submitted', hash, alreadyKnown: taken.every((a) => a.alreadyKnown) };
  return answers.find((a) => a.status === 'rejected') ?? answers[0]!;
}

/**
 * Broadcasts through every URL that takes them (as Chainlink's TXM does with its send-only nodes): one that answers
 * "accepted" and forwards nothing cannot hold a transaction back while another URL delivers it. Remembers which URLs
 * accepted each hash, so one whose node turns out never to have received it can be told apart (broadcastDidNotLand).
 */
function createBroadcaster(rpc: Rpc, urls: readonly UrlSender[]) {
  const senders = urls.map((u) => ({ u, client: createPublicClient({ transport: u.transport, cacheTime: 0 }) }));
  const accepted = new Map<string, Set<(typeof senders)[number]>>();
  const remember = (hash: Hex, who: (typeof senders)[number]) => {
    const key = hash.toLowerCase();
    const set = accepted.get(key) ?? new Set();
    accepted.delete(key);
    accepted.set(key, set.add(who));
    if (accepted.size > ACCEPTED_KEPT) accepted.delete(accepted.keys().next().value!);
  };

  async function send(serialized: Hex, hash: Hex): Promise<BroadcastOutcome> {
    const open = senders.filter((s) => s.u.takesBroadcasts());
    if (senders.length < 2 || open.length === 0) {
      const outcome = await broadcastVia(rpc.broadcaster, rpc, serialized, hash);
      if (senders.length === 1 && outcome.status === 'submitted' && !outcome.alreadyKnown) remember(hash, senders[0]!);
      return outcome;
    }
    const answers = await Promise.all(open.map((s) => broadcastVia(s.client, rpc, serialized, hash)));
    answers.forEach((a, i) => a.status === 'submitted' && !a.alreadyKnown && remember(hash, open[i]!));
    // None answered on its own: the failover's rounds and backoff get their turn.
    if (answers.every((a) => a.status === 'unavailable')) return broadcastVia(rpc.broadcaster, rpc, serialized, hash);
    return combine(answers, hash);
  }

  async function didNotLand(hash: Hex): Promise<number> {
    const key = hash.toLowerCase();
    const who = [...(accepted.get(key) ?? [])];
    accepted.delete(key);
    const asked = await Promise.all(
      who.map((s) =>
        s.client.request({ method: 'eth_getTransactionByHash', params: [hash] } as never).then(
          (tx) => tx === null,
          () => false,
        ),
      ),
    );
    const unknown = who.filter((_, i) => asked[i]);
    for (const s of unknown)
      s.u.distrust(
        `accepted transaction ${hash} as new, but its node never received it: broadcasts go to the other URLs`,
        DISTRUST_MS,
      );
    return unknown.length;
  }

  return { send, didNotLand };
}

async function broadcast(
  send: (serialized: Hex, hash: Hex) => Promise<BroadcastOutcome>,
  checkChainId: () => Promise<void>,
  serialized: Hex,
  known?: Hex,
): Promise<BroadcastOutcome> {
  const hash = known ?? keccak256(serialized);
  try {
    await checkChainId();
  } catch (err) {
    return { status: 'unavailable', message: (err as AppError).reason };
  }
  return send(serialized, hash);
}

async function estimateGas(rpc: Rpc, call: CallRequest): Promise<GasEstimate> {
  try {
    const gas = await rpc.client.estimateGas({
      account: call.from,
      ...(call.to ? { to: call.to } : {}),
      ...(call.data ? { data: call.data } : {}),
      value: call.value,
    });
    return { ok: true, gas };
  } catch (err) {
    if (!isNodeAnswer(err)) throw rpc.unavailable('eth_estimateGas', err);
    const reason = nodeMessage(err);
    const data = revertData(err);
    return {
      ok: false,
      reason,
      revert: data !== undefined || /revert/i.test(reason) ? decodeRevert(data, reason) : null,
    };
  }
}

async function revertReason(rpc: Rpc, hash: Hex): Promise<RevertReason | null> {
  const [tx, receipt] = await Promise.all([
    rpc.raw<RawTransaction>('eth_getTransactionByHash', [hash]),
    rpc.raw<RawReceipt>('eth_getTransactionReceipt', [hash]),
  ]);
  if (!tx || !receipt || hexToNumber(receipt.status) === 1) return null;
  const block = hexToBigInt(receipt.blockNumber);
  try {
    // The parent block's state is what the transaction started from (earlier transactions of its own block aside).
    await rpc.client.call({
      account: tx.from,
      ...(tx.to ? { to: tx.to } : {}),
      data: tx.input,
      value: hexToBigInt(tx.value),
      gas: hexToBigInt(tx.gas),
      blockNumber: block > 0n ? block - 1n : 0n,
    });
    return {
      kind: 'unknown',
      message: 'reverted on chain, but the replay on the parent block did not revert',
      data: null,
    };
  } catch (err) {
    if (!isNodeAnswer(err)) throw rpc.unavailable('eth_call', err);
    return decodeRevert(revertData(err), nodeMessage(err));
  }
}

/** A request passed through as given: the node's result or its own error object; no URL answering is CHAIN_UNAVAILABLE. */
async function rawRequest(rpc: Rpc, method: string, params: unknown): Promise<RawRpcAnswer> {
  let result: unknown;
  try {
    result = await rpc.client.request({ method, params } as never);
  } catch (err) {
    const error = nodeError(err);
    if (!error) throw rpc.unavailable(method, err);
    return { error };
  }
  // An answer with neither `result` nor `error` is not JSON-RPC: nothing of it is passed on.
  if (result === undefined) throw rpc.unavailable(method, new Error('no result'));
  return { result };
}
const toReceipt = (r: RawReceipt): Receipt => ({
  hash: r.transactionHash,
  ...(r.from ? { from: r.from } : {}),
  status: hexToNumber(r.status) === 1 ? 'success' : 'reverted',
  blockNumber: hexToBigInt(r.blockNumber),
  blockHash: r.blockHash,
  gasUsed: hexToBigInt(r.gasUsed),
  effectiveGasPrice: r.effectiveGasPrice ? hexToBigInt(r.effectiveGasPrice) : 0n,
});

/** Lookups that answer null for what the node does not know. */
function lookups(rpc: Rpc): Pick<EvmChain, 'transaction' | 'receipt' | 'blockReceipts' | 'blockNumber' | 'blockHash'> {
  return {
    async transaction(hash) {
      const tx = await rpc.raw<RawTransaction>('eth_getTransactionByHash', [hash]);
      if (!tx) return null;
      return {
        hash: tx.hash,
        from: tx.from,
        nonce: hexToNumber(tx.nonce),
        blockNumber: tx.blockNumber ? hexToBigInt(tx.blockNumber) : null,
        blockHash: tx.blockHash ?? null,
        content: contentOf(tx),
      };
    },
    async receipt(hash) {
      const r = await rpc.raw<RawReceipt>('eth_getTransactionReceipt', [hash]);
      return r ? toReceipt(r) : null;
    },
    async blockReceipts(number) {
      const all = await rpc.raw<RawReceipt[]>('eth_getBlockReceipts', [numberToHex(number)]);
      return all ? all.map(toReceipt) : null;
    },
    blockNumber: () => rpc.read('eth_blockNumber', () => rpc.client.getBlockNumber({ cacheTime: 0 })),
    async blockHash(number) {
      const block = await rpc.raw<{ hash: Hex }>('eth_getBlockByNumber', [numberToHex(number), false]);
      return block?.hash ?? null;
    },
  };
}

export function createEvmChain(network: EvmNetworkConfig, options: EvmChainOptions = {}): EvmChain {
  const name = network.network;
  // Batching is on by default only for a devnet (anvil takes batches); a provider may refuse or cap them.
  const batch = network.rpc_batch ?? network.devnet !== undefined;
  const transport = createRpcTransport({
    network: name,
    urls: network.rpc_urls,
    ...RPC_DEFAULTS,
    ...options.rpc,
    observer: options.observer,
    fetchFor: options.fetchFor,
    batch,
  });
  const client = createPublicClient({ transport: transport.transport, cacheTime: 0 });
  const rpc = createRpc(
    name,
    client,
    batch ? createPublicClient({ transport: transport.batched, cacheTime: 0 }) : client,
  );
  const { read } = rpc;
  const broadcaster = createBroadcaster(rpc, transport.urls);

  let chainIdChecked = false;
  const checkChainId = async (): Promise<void> => {
    if (chainIdChecked) return;
    const id = await read('eth_chainId', () => client.getChainId());
    if (id !== network.chain_id) throw new ChainIdMismatchError(name, network.chain_id, id);
    chainIdChecked = true;
  };

  return {
    network: name,
    chainId: network.chain_id,
    checkChainId,
    balance: (address) => read('eth_getBalance', () => client.getBalance({ address })),
    async nonces(address) {
      const [latest, pending] = await Promise.all(
        (['latest', 'pending'] as const).map((blockTag) =>
          read('eth_getTransactionCount', () => client.getTransactionCount({ address, blockTag })),
        ),
      );
      return { latest: latest!, pending: pending! };
    },
    fees: createFees(rpc, network.features?.includes('eip1559') ?? false, feeCacheMs(network)),
    estimateGas: (call) => estimateGas(rpc, call),
    broadcast: (serialized, hash) => broadcast(broadcaster.send, checkChainId, serialized, hash),
    broadcastDidNotLand: (hash) => broadcaster.didNotLand(hash),
    ...lookups(rpc),
    revertReason: (hash) => revertReason(rpc, hash),
    l1Fee: (unsigned) => readL1Fee(client, name, unsigned, read),
    rawRequest: (method, params) => rawRequest(rpc, method, params),
    health: transport.health,
  };
}
