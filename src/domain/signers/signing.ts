// Signing with a relayer's signer, as the reference offers it: EIP-191 and EIP-712 for EVM, a transaction for Solana and
// Stellar. The hashes are made here; the signer (a port) only signs them.
import { bytesToHex, concatHex, hashMessage, hexToBytes, keccak256, type Hex } from 'viem';
import { AppError, ValidationError } from '../../errors.ts';
import type { NetworkType } from '../types.ts';
import type { RelayerChains } from '../chains/reads.ts';
import type { EvmSignature, SignedTransactionView } from '../chains/views.ts';
import type { RelayerRow } from '../relayers/ports.ts';
import type { Ed25519Signer, Signer } from './ports.ts';
import { solanaApproval, stellarApproval } from './gate.ts';
import type { StellarChain } from '../chains/stellar/ports.ts';
import type { StellarFeePolicy } from '../transactions/stellar/fee-token.ts';
import type { FeeBumpTransaction, Transaction } from '@stellar/stellar-base';

export interface TypedDataHashes {
  domain_separator: string;
  hash_struct_message: string;
}

/** The sign-transaction body by its shape: the reference tells the variants apart the same way (untagged). */
export type SignTransactionInput =
  | { kind: 'stellar'; unsigned_xdr: string }
  | { kind: 'solana'; transaction: string }
  | { kind: 'evm'; bytes: number[] };

// The reference's texts for what a network type does not offer.
const NOT_SUPPORTED = {
  sign: { solana: 'Sign data not supported for Solana relayers', stellar: 'Signing data not supported for Stellar' },
  typed: {
    solana: 'Sign typed data not supported for Solana relayers',
    stellar: 'Signing typed data not supported for Stellar',
  },
} as const;

const notSupported = (reason: string) => new AppError('NOT_SUPPORTED', { reason });

/** 65 bytes r ‖ s ‖ v (v 27/28), split as the reference answers. */
function toEvmSignature(signature: Hex): EvmSignature {
  const hex = signature.slice(2);
  return { r: hex.slice(0, 64), s: hex.slice(64, 128), v: parseInt(hex.slice(128, 130), 16), sig: hex };
}

/** 32 bytes of hex, 0x optional (the reference's rule), with the field and the problem named. */
function hash32(field: string, value: string): Hex {
  const hex = value.startsWith('0x') ? value.slice(2) : value;
  const bad = /[^0-9a-fA-F]/.exec(hex);
  if (bad)
    throw new ValidationError(`'${field}' must be hex: non-hexadecimal character '${bad[0]}' at position ${bad.index}`);
  if (hex.length !== 64)
    throw new ValidationError(
      `'${field}' must be 32 bytes (64 hex digits), got ${hex.length % 2 === 0 ? `${hex.length / 2} bytes` : `${hex.length} hex digits`}`,
    );
  return `0x${hex}`;
}

/** The 65-byte signature of a 32-byte hash by the relayer's EVM signer, as 0x-hex. */
async function signEvmHash(relayer: RelayerRow, signer: Signer, hash: Hex): Promise<Hex> {
  if (!signer.signEvmDigest) throw new AppError('INTERNAL', { reason: `relayer '${relayer.id}' has no EVM key` });
  return bytesToHex(await signer.signEvmDigest(hexToBytes(hash)));
}

function ed25519(relayer: RelayerRow, signer: Signer): Ed25519Signer {
  if (signer.ed25519) return signer.ed25519;
  throw new ValidationError(
    `relayer '${relayer.id}' cannot sign: its signer '${relayer.signer_id}' has an address but no key (set private_key_env)`,
  );
}

/** What a sign-transaction body of the wrong network type is told (the reference's texts). */
function wrongShape(networkType: NetworkType, input: SignTransactionInput): AppError | null {
  if (networkType === 'evm') return notSupported('Transaction signing not supported for EVM');
  if (input.kind === networkType) return null;
  return notSupported(`Invalid request type for ${networkType === 'solana' ? 'Solana' : 'Stellar'} relayer`);
}

export interface RelayerSigning {
  signData(relayer: RelayerRow, signer: Signer, message: string): Promise<EvmSignature>;
  signTypedData(relayer: RelayerRow, signer: Signer, request: TypedDataHashes): Promise<EvmSignature>;
  signTransaction(relayer: RelayerRow, signer: Signer, input: SignTransactionInput): Promise<SignedTransactionView>;
}

/** A Stellar relayer whose users pay (fee_payment_strategy: user) signs only a transaction that pays it, as the reference. */
async function checkUserPaysSigning(relayer: RelayerRow, chain: StellarChain, envelope: string): Promise<void> {
  const policy = (relayer.policies ?? {}) as StellarFeePolicy;
  if (policy.fee_payment_strategy !== 'user') return;
  // Loaded here, not with this module: an instance without a Stellar network never loads @stellar/stellar-base.
  const [{ TransactionBuilder }, { checkUserFeePayment, SIGN_MAX_VALIDITY_MS }] = await Promise.all([
    import('@stellar/stellar-base'),
    import('../transactions/stellar/gasless-checks.ts'),
  ]);
  let tx: Transaction | FeeBumpTransaction;
  try {
    tx = TransactionBuilder.fromXDR(envelope, chain.passphrase);
  } catch (err) {
    throw new ValidationError(`Failed to parse XDR: ${(err as Error).message}`);
  }
  try {
    await checkUserFeePayment(tx, relayer.address, policy, chain, SIGN_MAX_VALIDITY_MS);
  } catch (err) {
    if (err instanceof ValidationError) throw new ValidationError(`Failed to validate transaction: ${err.reason}`);
    throw err;
  }
}

export function createRelayerSigning(chains: RelayerChains): RelayerSigning {
  return {
    async signData(relayer, signer, message) {
      if (relayer.network_type !== 'evm') throw notSupported(NOT_SUPPORTED.sign[relayer.network_type]);
      return toEvmSignature(await signEvmHash(relayer, signer, hashMessage(message)));
    },
    async signTypedData(relayer, signer, request) {
      if (relayer.network_type !== 'evm') throw notSupported(NOT_SUPPORTED.typed[relayer.network_type]);
      // EIP-712: keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)), signed as a raw hash.
      const hash = keccak256(
        concatHex([
          '0x1901',
          hash32('domain_separator', request.domain_separator),
          hash32('hash_struct_message', request.hash_struct_message),
        ]),
      );
      return toEvmSignature(await signEvmHash(relayer, signer, hash));
    },
    async signTransaction(relayer, signer, input) {
      const refused = wrongShape(relayer.network_type, input);
      if (refused) throw refused;
      if (input.kind === 'stellar') {
        await checkUserPaysSigning(relayer, chains.stellar(relayer), input.unsigned_xdr);
        const chain = chains.stellar(relayer);
        const signed = await chain.signEnvelope(
          input.unsigned_xdr,
          ed25519(relayer, signer),
          "'unsigned_xdr'",
          stellarApproval(chain, relayer),
        );
        return { signedXdr: signed.envelopeXdr, signature: signed.signature };
      }
      if (input.kind === 'solana') {
        // As fee payer: refused unless the relayer pays the fee and every other signature is already there; through the gate.
        const chain = chains.solana(relayer);
        const signed = await chain.signTransaction(
          input.transaction,
          ed25519(relayer, signer),
          solanaApproval(chain, relayer),
        );
        return { transaction: signed.transaction, signature: signed.signature };
      }
      throw notSupported('Transaction signing not supported for EVM');
    },
  };
}
