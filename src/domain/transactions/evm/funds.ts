// A relayer's funds as a ledger (issue 39): each unmined send holds its worst-case cost, and a send is accepted only
// when the balance, less what is held and less min_balance, covers its own worst case. The check that counts is made
// in the store transaction that takes the nonce (send-writer.ts), against the ledger row it locks; the one here,
// before signing, refuses early what the balance alone cannot cover.
import { InsufficientBalanceError } from '../../../errors.ts';
import type { FundsLedger } from '../../relayers/ports.ts';
import type { TransactionRecord } from '../../types.ts';
import { maxCost } from './transaction.ts';
import { asEvm, preparedOf } from './versions.ts';

/** The node's balance and the ledger read just before it (sends released later are not in its `released`). */
export interface FundsSnapshot {
  balance: bigint;
  ledger: FundsLedger;
  at: number;
}

/** What a send asks of its relayer's funds, for the check and its refusal. */
export interface FundsAsk {
  relayerId: string;
  cost: bigint;
  minBalance: bigint;
  /** What `cost` is made of, for the refusal's text. */
  parts: string;
}

/** The most an EVM record's newest version can take from the balance: value + gas_limit × max fee (+ L1 data fee). */
export function worstCaseOf(record: TransactionRecord): bigint {
  const r = asEvm(record);
  const l1 = (r as { l1_fee?: unknown }).l1_fee;
  return maxCost(preparedOf(r)) + (typeof l1 === 'string' ? BigInt(l1) : 0n);
}

/**
 * The refusal when `snapshot`'s balance cannot pay `ask` on top of `reserved` (held by other unmined sends) and the
 * min_balance; null when it can. Sends released since the snapshot are subtracted from it: their cost may have left
 * the balance after it was read (a release counts its worst case, so the figure errs on the safe side).
 */
export function refusal(
  snapshot: FundsSnapshot,
  ledger: FundsLedger,
  reserved: bigint,
  ask: FundsAsk,
): InsufficientBalanceError | null {
  const since = ledger.released - snapshot.ledger.released;
  const balance = snapshot.balance - (since > 0n ? since : 0n);
  const missing = ask.cost + reserved + ask.minBalance - balance;
  if (missing <= 0n) return null;
  const held = reserved > 0n ? ` on top of ${reserved} wei reserved by its unmined transactions` : '';
  const min = ask.minBalance > 0n ? `, with an enforced minimum balance of ${ask.minBalance}` : '';
  return new InsufficientBalanceError(
    `Insufficient balance: Relayer balance ${balance < 0n ? 0n : balance} is insufficient to cover ${ask.cost}${held}${min}: ${missing} wei missing (relayer '${ask.relayerId}'; the transaction may cost up to ${ask.cost} wei: ${ask.parts})`,
    {
      balance: String(balance),
      reserved: String(reserved),
      min_balance: String(ask.minBalance),
      cost: String(ask.cost),
      missing: String(missing),
    },
  );
}

export interface FundsGuard {
  /**
   * The relayer's snapshot, read again when older than the guard's ttl or when `fresh`. Concurrent sends share one
   * read. `ledger` is read before `balance`, so whatever was released after the balance was read is counted as spent.
   */
  snapshot(
    relayerId: string,
    ledger: () => Promise<FundsLedger>,
    balance: () => Promise<bigint>,
    fresh?: boolean,
  ): Promise<FundsSnapshot>;
  /** The next snapshot of the relayer is read again (a send was refused with this one: the node may know better). */
  forget(relayerId: string): void;
}

/** The node's balance is read at most every `ttlMs` per relayer: no RPC per send. */
export function createFundsGuard(ttlMs: number): FundsGuard {
  const known = new Map<string, FundsSnapshot>();
  const reading = new Map<string, Promise<FundsSnapshot>>();
  return {
    snapshot(relayerId, ledger, balance, fresh = false) {
      const entry = known.get(relayerId);
      if (entry && !fresh && Date.now() - entry.at <= ttlMs) return Promise.resolve(entry);
      let read = reading.get(relayerId);
      if (!read) {
        read = (async () => {
          const at = Date.now();
          const read = await ledger();
          const snapshot = { balance: await balance(), ledger: read, at };
          known.set(relayerId, snapshot);
          return snapshot;
        })().finally(() => reading.delete(relayerId));
        reading.set(relayerId, read);
      }
      return read;
    },
    forget: (relayerId) => void known.delete(relayerId),
  };
}
