// Everything Stellar the relayer operations use, behind one module: it and @stellar/stellar-base (~9 MiB of the HTTP
// process) are loaded only when a Stellar network is configured (src/domain/relaying.ts).
export { createStellarFamily } from './relay.ts';
export { createStellarSponsored } from './sponsored.ts';
export { createStellarSwaps, STELLAR_SWAP_JOB } from './token-swap.ts';
