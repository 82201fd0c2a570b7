// Receipts for the `evm.check` runs, read a block at a time instead of a transaction at a time. A run reads the
// blocks mined since the last one. A run walks at most WINDOW transactions, so under a burst the transactions of a
// block are settled over several runs: the block each of ours was seen in is remembered (hash → block number, our
// sender's only), and a later run reads that block again, once for all of them, instead of one receipt per hash.
// Blocks come through block-receipts.ts, shared by the relayers of a network: every read is checked against the
// canonical chain as of the run that uses it (the block's hash at its number), so a transaction no longer in its
// block (reorged) is not found there and is looked up by hash as before.
// A run reads the head and the account's nonces at the same moment, so a block mined between the two reads can be
// missed: passed over by a run whose nonce read came first, or newer than the head this run read. The first hash of a
// transaction not yet recorded as mined that a run does not find makes it read those blocks once (the previous run's
// head, and up to the head now), for all the rest.
import type { EvmChain, Receipt } from '../../chains/ports.ts';
import { createBlockReceipts } from './block-receipts.ts';

/** Blocks read per run at most; older ones are looked up per transaction. */
const BLOCKS_PER_RUN = 16;
/** How far back a block of ours is remembered; older ones are looked up per transaction. */
const SEEN_BLOCKS_KEPT = 64n;

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
const span = (from: bigint, to: bigint) =>
  Array.from({ length: Math.max(0, Number(to - from + 1n)) }, (_, i) => from + BigInt(i));

export function createReceiptReader() {
  /** The newest block each relayer's check has read receipts of (in memory: after a restart, lookups per transaction). */
  const scanned = new Map<string, bigint>();
  /** Per relayer: our transactions seen mined in the blocks read, by lower-case hash. */
  const seen = new Map<string, Map<string, bigint>>();
  const blockReceipts = createBlockReceipts();

  function remember(
    relayerId: string,
    sender: string,
    head: bigint,
    blocks: ReadonlyArray<readonly Receipt[] | null>,
  ): void {
    const ours = seen.get(relayerId) ?? new Map<string, bigint>();
    for (const [hash, block] of ours) if (head - block > SEEN_BLOCKS_KEPT) ours.delete(hash);
    for (const receipts of blocks)
      for (const r of receipts ?? [])
        if (r.from?.toLowerCase() === sender) ours.set(r.hash.toLowerCase(), r.blockNumber);
    if (ours.size > 0) seen.set(relayerId, ours);
    else seen.delete(relayerId);
  }

  /** These blocks' receipts (a block that fails to read counts as empty), ours in them remembered. */
  async function read(relayerId: string, sender: string, chain: EvmChain, numbers: readonly bigint[], head: bigint) {
    const blocks = await Promise.all(numbers.map((n) => blockReceipts.of(chain, n)));
    remember(relayerId, sender, head, blocks);
    return byHash(blocks);
  }

  /** `wanted`: some transaction of the run has a used nonce (else nothing is read, and the blocks are passed over). */
  async function forRun(
    relayerId: string,
    address: string,
    chain: EvmChain,
    head: bigint,
    wanted: boolean,
  ): Promise<RunReceipts> {
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
      if (!got) reads.set(block, (got = read(relayerId, sender, chain, [block], head)));
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
