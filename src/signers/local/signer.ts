// The local signer (the domain's Signer port): a key from the config file, the environment or a keystore, kept here.
// Resolves each configured relayer's signer: its public address and what signs (secp256k1 for EVM, Ed25519 for Solana
// and Stellar, in ../keys.ts); the key never leaves src/signers. A Solana or Stellar key loads resolve.ts, and with it
// those networks' libraries, when the first one is resolved.
import type { SignerFactory } from '../factory.ts';
import { resolveEvm } from './key-source.ts';

/** The local adapter (src/signers/registry.ts): keys and keystore passphrases named by the config are read from `env`. */
export const createSigner: SignerFactory = async (signer, networkType, { env }) =>
  networkType === 'evm'
    ? resolveEvm(signer, env)
    : (await import('./resolve.ts')).resolveSigner(signer, networkType, env);
