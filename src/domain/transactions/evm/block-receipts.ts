// The receipts of a network's blocks, for every relayer's check on it: a block full of one relayer's burst is read
// once, not once per relayer (eth_getBlockReceipts costs anvil ~0.1 ms of CPU per transaction in the block; 17
// relayers reading each 1,400-transaction block kept it busy past the RPC timeout). What was read is used again while
// the node gives the block the same hash at its number (a header read, ~1 ms for such a block): a block's receipts do
// not change while it stays canonical, and a changed hash (a reorg) reads it again. Reads in flight are shared too.
import type { EvmChain, Receipt } from '../../chains/ports.ts';

/** Blocks kept per network (the newest read); an older one is read again when needed. */
const BLOCKS_KEPT = 8;

interface KeptBlock {
  hash: string;
  receipts: readonly Receipt[];
}

interface ChainBlocks {
  kept: Map<bigint, KeptBlock>;
  reading: Map<bigint, Promise<readonly Receipt[] | null>>;
}

export interface BlockReceipts {
  /** The block's receipts as the node has them now; null when it does not answer (or has no such block). */
  of(chain: EvmChain, block: bigint): Promise<readonly Receipt[] | null>;
}

export function createBlockReceipts(): BlockReceipts {
  // Per chain adapter: one per network (or per set of custom RPC URLs), shared by the relayers on it.
  const chains = new WeakMap<EvmChain, ChainBlocks>();
  const blocksOf = (chain: EvmChain) => {
    let blocks = chains.get(chain);
    if (!blocks) chains.set(chain, (blocks = { kept: new Map(), reading: new Map() }));
    return blocks;
  };

  function keep(blocks: ChainBlocks, block: bigint, receipts: readonly Receipt[] | null): void {
    // An empty block has no receipt to tell its hash by: not kept (reading it again costs the node nothing).
    if (!receipts?.length) {
      if (receipts) blocks.kept.delete(block);
      return;
    }
    blocks.kept.set(block, { hash: receipts[0]!.blockHash.toLowerCase(), receipts });
    if (blocks.kept.size <= BLOCKS_KEPT) return;
    const oldest = [...blocks.kept.keys()].sort((a, b) => (a < b ? -1 : 1)).slice(0, blocks.kept.size - BLOCKS_KEPT);
    for (const n of oldest) blocks.kept.delete(n);
  }

  function read(chain: EvmChain, blocks: ChainBlocks, block: bigint): Promise<readonly Receipt[] | null> {
    const reading = chain.blockReceipts(block).then(
      (receipts) => {
        keep(blocks, block, receipts);
        return receipts;
      },
      () => null,
    );
    blocks.reading.set(block, reading);
    void reading.finally(() => blocks.reading.delete(block));
    return reading;
  }

  return {
    async of(chain, block) {
      const blocks = blocksOf(chain);
      const inFlight = blocks.reading.get(block);
      if (inFlight) return inFlight;
      const known = blocks.kept.get(block);
      if (known && (await chain.blockHash(block).catch(() => null))?.toLowerCase() === known.hash)
        return known.receipts;
      return blocks.reading.get(block) ?? read(chain, blocks, block);
    },
  };
}
