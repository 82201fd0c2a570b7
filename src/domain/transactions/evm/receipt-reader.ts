// Receipts for the `evm.check` runs, read a block at a time instead of a transaction at a time. A run reads the
// blocks mined since the last one. A run walks at most WINDOW transactions, so under a burst the transactions of a
// block are settled over several runs: the block each of ours was seen in is remembered (hash → block number, our
// sender's only), and a later run reads that block again, once for all of them, instead of one receipt per hash.
// Every read is made in the run that uses it, so it is of the canonical chain as of that run: a transaction no longer
// in its block (reorged) is not found there and is looked up by hash as before.
import type { EvmChain, Receipt } from '../../chains/ports.ts';

/** Blocks read per run at most; older ones are looked up per transaction. */
const BLOCKS_PER_RUN = 16;
/** How far back a block of ours is remembered; older ones are looked up per transaction. */
const SEEN_BLOCKS_KEPT = 64n;

export interface RunReceipts {
  /** Receipts of the blocks read in this run (new since the last run), by lower-case hash. */
  receipts: ReadonlyMap<string, Receipt>;
  receiptInSeenBlock(hash: string): Promise<Receipt | undefined>;
}

const byHash = (receipts: readonly Receipt[] | null, into = new Map<string, Receipt>()) => {
  for (const r of receipts ?? []) into.set(r.hash.toLowerCase(), r);
  return into;
};

export function createReceiptReader() {
  /** The newest block each relayer's check has read receipts of (in memory: after a restart, lookups per transaction). */
  const scanned = new Map<string, bigint>();
  /** Per relayer: our transactions seen mined in the blocks read, by lower-case hash. */
  const seen = new Map<string, Map<string, bigint>>();

  function remember(relayerId: string, sender: string, head: bigint, blocks: ReadonlyArray<readonly Receipt[] | null>): void {
    const ours = seen.get(relayerId) ?? new Map<string, bigint>();
    for (const [hash, block] of ours) if (head - block > SEEN_BLOCKS_KEPT) ours.delete(hash);
    for (const receipts of blocks) for (const r of receipts ?? []) if (r.from?.toLowerCase() === sender) ours.set(r.hash.toLowerCase(), r.blockNumber);
    if (ours.size > 0) seen.set(relayerId, ours);
    else seen.delete(relayerId);
  }

  /** `wanted`: some transaction of the run has a used nonce (else nothing is read, and the blocks are passed over). */
  async function forRun(relayerId: string, sender: string, chain: EvmChain, head: bigint, wanted: boolean): Promise<RunReceipts> {
    const last = scanned.get(relayerId);
    scanned.set(relayerId, head);
    const receipts = new Map<string, Receipt>();
    if (wanted && last !== undefined && last < head) {
      const from = head - last > BLOCKS_PER_RUN ? head - BigInt(BLOCKS_PER_RUN) + 1n : last + 1n;
      const blocks = await Promise.all(Array.from({ length: Number(head - from + 1n) }, (_, i) => chain.blockReceipts(from + BigInt(i)).catch(() => null)));
      for (const b of blocks) byHash(b, receipts);
      remember(relayerId, sender.toLowerCase(), head, blocks);
    }
    const ours = seen.get(relayerId);
    const reads = new Map<bigint, Promise<Map<string, Receipt>>>();
    return {
      receipts,
      async receiptInSeenBlock(hash) {
        const block = ours?.get(hash);
        if (block === undefined) return undefined;
        let read = reads.get(block);
        if (!read) reads.set(block, (read = chain.blockReceipts(block).then((b) => byHash(b), () => new Map<string, Receipt>())));
        return (await read).get(hash);
      },
    };
  }

  return { forRun };
}
