// Resolves each configured relayer's signer: its public address and, for EVM, its private key.
import { privateKeyToAccount } from 'viem/accounts';
import { isAddress as isSolanaAddress } from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';
import type { SignerConfig } from '../../config.ts';
import type { NetworkType } from '../types.ts';

export interface ResolvedSigner {
  address: string;
  /** EVM only. Never logged, never returned. */
  privateKey?: `0x${string}`;
}

const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/**
 * EVM: the key comes from `private_key_env` (preferred) or a plain `private_key`, and the address
 * is derived from it. Solana and Stellar: the signer's configured `address`, checked for format.
 * Throws an Error naming the signer and the problem, so a bad config stops the start.
 */
export function resolveSigner(signer: SignerConfig, networkType: NetworkType, env: NodeJS.ProcessEnv): ResolvedSigner {
  if (networkType === 'evm') {
    let key = signer.private_key;
    if (signer.private_key_env) {
      key = env[signer.private_key_env];
      if (!key) throw new Error(`signer '${signer.id}': environment variable ${signer.private_key_env} is not set`);
    }
    if (!key) throw new Error(`signer '${signer.id}': an EVM signer needs private_key_env (or private_key in development)`);
    if (!PRIVATE_KEY.test(key)) throw new Error(`signer '${signer.id}': the private key must be 32 bytes of hex`);
    const privateKey = (key.startsWith('0x') ? key : `0x${key}`) as `0x${string}`;
    return { address: privateKeyToAccount(privateKey).address, privateKey };
  }
  const address = signer.address;
  if (!address) throw new Error(`signer '${signer.id}': a ${networkType} signer needs an address`);
  const valid = networkType === 'solana' ? isSolanaAddress(address) : StrKey.isValidEd25519PublicKey(address);
  if (!valid) throw new Error(`signer '${signer.id}': '${address}' is not a valid ${networkType} address`);
  return { address };
}
