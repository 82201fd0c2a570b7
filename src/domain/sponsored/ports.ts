// Sponsored (gasless) transactions: a network family that lets users pay the network fee in a token answers a quote
// (the fee in that token) and a build (the transaction carrying the fee payment, for the user to sign). Types only.
import type { RelayerRow } from '../relayers/ports.ts';

/** One family's quote and build; bodies arrive checked by the family's request schema. */
export interface SponsoredFamily {
  quote(relayer: RelayerRow, body: Record<string, unknown>): Promise<Record<string, unknown>>;
  build(relayer: RelayerRow, body: Record<string, unknown>): Promise<Record<string, unknown>>;
}
