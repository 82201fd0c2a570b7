// Receipts for the `evm.check` runs, read a block at a time instead of a transaction at a time. A run reads the
// blocks mined since the last one. A run walks at most WINDOW transactions, so under a burst the transactions of a
// block are settled over several runs: the block each of ours was seen in is remembered (hash → block number, our
// sender's only), with our receipts in it and the block's hash. A later run asks the node for that block's hash
// (a header read) and, while it is the same, takes ours from what it remembered: the receipts of a block do not change
// while it stays canonical, and a block's receipts cost a node far more than its hash (anvil: ~0.1 ms of CPU per
// transaction in the block against ~1 ms for the whole header). A changed hash (a reorg) makes the run read the block
// again, so a transaction no longer in its block is not found there and is looked up by hash as before.
// A run reads the head and the account's nonces at the same moment, so a block mined between the two reads can be
// missed: passed over by a run whose nonce read came first, or newer than the head this run read. The first hash of a
// transaction not yet recorded as mined that a run does not find makes it read those blocks once (the previous run's
// head, and up to the head now), for all the rest.
import type { EvmChain, Receipt } from '../../chains/ports.ts';

/** Blocks read per run at most; older ones are looked up per transaction. */
const BLOCKS_PER_RUN = 16;
/** How far back a block of ours is remembered; older ones are looked up per transaction. */
const SEEN_BLOCKS_KEPT = 64n;
/** Blocks whose receipts of ours are kept per relayer (the newest); an older one is read again when needed. */
const RECEIPT_BLOCKS_KEPT = 16;

export interface RunReceipts {
  /** Receipts of the blocks read in this run (new since the last run), by lower-case hash. */
  receipts: ReadonlyMap<string, Receipt>;
  /**
   * From a block read again (seen earlier, or missed by a race); undefined: look it up by hash. `mayBeNew`: not yet
   * recorded as mined, so possibly in a block a race made this reader miss (a mined one was found before).
   */
  receiptInBlocks(hash: string, mayBeNew: boolean): Promise<Receipt | undefined>;
}

const byHash = (blocks: ReadonlyArray<readonly Receipt[] | null>, into = new Map<string, Receipt>()) => {
  for (const receipts of blocks) for (const r of receipts ?? []) into.set(r.hash.toLowerCase(), r);
  return into;
};

/** from..to, both included. */
const span = (from: bigint, to: bigint) => Array.from({ length: Math.max(0, Number(to - from + 1n)) }, (_, i) => from + BigInt(i));

/** A block with receipts of ours: its hash when read, and our receipts in it by lower-case hash. */
interface OurBlock {
  hash: string;
  ours: Map<string, Receipt>;
}

export function createReceiptReader() {
  /** The newest block each relayer's check has read receipts of (in memory: after a restart, lookups per transaction). */
  const scanned = new Map<string, bigint>();
  /** Per relayer: our transactions seen mined in the blocks read, by lower-case hash. */
  const seen = new Map<string, Map<string, bigint>>();
  /** Per relayer: the blocks of those, by number (within SEEN_BLOCKS_KEPT of the head, like `seen`). */
  const blocksOf = new Map<string, Map<bigint, OurBlock>>();

  function remember(relayerId: string, sender: string, head: bigint, blocks: ReadonlyArray<readonly Receipt[] | null>): void {
    const ours = seen.get(relayerId) ?? new Map<string, bigint>();
    const kept = blocksOf.get(relayerId) ?? new Map<bigint, OurBlock>();
    for (const [hash, block] of ours) if (head - block > SEEN_BLOCKS_KEPT) ours.delete(hash);
    for (const block of kept.keys()) if (head - block > SEEN_BLOCKS_KEPT) kept.delete(block);
    for (const receipts of blocks) {
      const mine = (receipts ?? []).filter((r) => r.from?.toLowerCase() === sender);
      for (const r of mine) ours.set(r.hash.toLowerCase(), r.blockNumber);
      // Read again: what it holds now replaces what it held (a reorged block's transactions are gone from it).
      if (receipts?.length) kept.delete(receipts[0]!.blockNumber);
      if (mine.length > 0) kept.set(mine[0]!.blockNumber, { hash: mine[0]!.blockHash.toLowerCase(), ours: byHash([mine]) });
    }
    if (kept.size > RECEIPT_BLOCKS_KEPT) for (const block of [...kept.keys()].sort((a, b) => (a < b ? -1 : 1)).slice(0, kept.size - RECEIPT_BLOCKS_KEPT)) kept.delete(block);
    if (ours.size > 0) seen.set(relayerId, ours);
    else seen.delete(relayerId);
    if (kept.size > 0) blocksOf.set(relayerId, kept);
    else blocksOf.delete(relayerId);
  }

  /** Reads these blocks' receipts (a block that fails to read counts as empty) and remembers ours in them. */
  async function read(relayerId: string, sender: string, chain: EvmChain, numbers: readonly bigint[], head: bigint) {
    const blocks = await Promise.all(numbers.map((n) => chain.blockReceipts(n).catch(() => null)));
    remember(relayerId, sender, head, blocks);
    return byHash(blocks);
  }

  /** Ours in a block read before, while the node still has it at that number (same hash); else the block read again. */
  async function readAgain(relayerId: string, sender: string, chain: EvmChain, block: bigint, head: bigint) {
    const known = blocksOf.get(relayerId)?.get(block);
    if (known && (await chain.blockHash(block).catch(() => null))?.toLowerCase() === known.hash) return known.ours;
    return read(relayerId, sender, chain, [block], head);
  }

  /** `wanted`: some transaction of the run has a used nonce (else nothing is read, and the blocks are passed over). */
  async function forRun(relayerId: string, address: string, chain: EvmChain, head: bigint, wanted: boolean): Promise<RunReceipts> {
    const sender = address.toLowerCase();
    const last = scanned.get(relayerId);
    scanned.set(relayerId, head);
    const fresh = wanted && last !== undefined && last < head;
    const from = fresh && head - last > BLOCKS_PER_RUN ? head - BigInt(BLOCKS_PER_RUN) + 1n : (last ?? head) + 1n;
    const receipts = fresh ? await read(relayerId, sender, chain, span(from, head), head) : new Map<string, Receipt>();
    const reads = new Map<bigint, Promise<Map<string, Receipt>>>();
    const inSeenBlock = async (hash: string) => {
      const block = seen.get(relayerId)?.get(hash);
      if (block === undefined) return undefined;
      let got = reads.get(block);
      if (!got) reads.set(block, (got = readAgain(relayerId, sender, chain, block, head)));
      return (await got).get(hash);
    };
    let missed: Promise<Map<string, Receipt>> | undefined;
    /** Once per run: the previous run's head (it may have passed it over) and the blocks mined since this run's head. */
    const readMissed = async (since: bigint) => {
      const now = await chain.blockNumber().catch(() => head);
      const top = now - head > BLOCKS_PER_RUN ? head + BigInt(BLOCKS_PER_RUN) : now;
      if (top > head) scanned.set(relayerId, top);
      const numbers = [since, ...span(head + 1n, top)];
      const got = read(relayerId, sender, chain, numbers, top > head ? top : head);
      // Hashes these blocks hold are now remembered in them: answered from this read, not read again.
      for (const n of numbers) if (!reads.has(n)) reads.set(n, got);
      return got;
    };
    return {
      receipts,
      async receiptInBlocks(hash, mayBeNew) {
        const found = await inSeenBlock(hash);
        if (found || !mayBeNew || last === undefined) return found;
        return (await (missed ??= readMissed(last))).get(hash);
      },
    };
  }

  return { forRun };
}
