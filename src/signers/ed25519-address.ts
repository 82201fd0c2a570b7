// The address an Ed25519 public key has on Solana (base58) and on Stellar (a `G…` account id). The only signer code
// that imports those networks' libraries: it is loaded on the first Solana or Stellar key, never for EVM keys.
import { getAddressDecoder } from '@solana/kit';
import { StrKey } from '@stellar/stellar-base';

export function encodeEd25519Address(publicKey: Uint8Array, networkType: 'solana' | 'stellar'): string {
  return networkType === 'solana'
    ? getAddressDecoder().decode(publicKey)
    : StrKey.encodeEd25519PublicKey(Buffer.from(publicKey));
}
