// The relayer's balance, checked before signing: a clear 400 when it cannot pay, without one RPC per send.
import { ValidationError } from '../../../errors.ts';
import type { EvmChain, Hex } from '../../chains/ports.ts';

export interface FundsGuard {
  /** Throws a ValidationError when `address` cannot pay `cost` wei; reserves it otherwise. Safe for concurrent sends. */
  /** `parts`: what `cost` is made of, for the refusal's text. */
  reserve(chain: EvmChain, relayerId: string, address: string, cost: bigint, parts?: string): Promise<void>;
}

/**
 * The node's balance is read at most every `ttlMs` per relayer; sends in between spend from it locally (the
 * most they can cost). A send that the local figure cannot cover reads the node again before it is refused.
 */
export function createFundsGuard(ttlMs: number): FundsGuard {
  type Entry = { at: number; available: bigint };
  const known = new Map<string, Entry>();
  // One balance read per relayer at a time: concurrent sends share it and spend from the same entry.
  const reading = new Map<string, Promise<Entry>>();
  const refresh = (chain: EvmChain, relayerId: string, address: string): Promise<Entry> => {
    let read = reading.get(relayerId);
    if (!read) {
      read = chain
        .balance(address as Hex)
        .then((available) => {
          const entry = { at: Date.now(), available };
          known.set(relayerId, entry);
          return entry;
        })
        .finally(() => reading.delete(relayerId));
      reading.set(relayerId, read);
    }
    return read;
  };
  return {
    async reserve(chain, relayerId, address, cost, parts = 'value + gas_limit × fee') {
      let entry = known.get(relayerId);
      if (!entry || Date.now() - entry.at > ttlMs || entry.available < cost) entry = await refresh(chain, relayerId, address);
      if (entry.available < cost) {
        throw new ValidationError(
          `relayer '${relayerId}' cannot pay for this transaction: its balance is ${entry.available} wei, and the transaction may cost up to ${cost} wei (${parts})`,
        );
      }
      entry.available -= cost;
    },
  };
}
