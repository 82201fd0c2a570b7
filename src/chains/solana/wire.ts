// Solana wire transactions, pure: decode, check what the relayer may sign, sign as fee payer, swap the blockhash.
import { createPublicKey, verify } from 'node:crypto';
import {
  getAddressEncoder,
  getBase58Decoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Address,
  type CompiledTransactionMessage,
  type SignatureBytes,
  type Transaction,
  type TransactionMessageBytes,
} from '@solana/kit';
import { ValidationError } from '../../errors.ts';
import type { SolanaSigner } from '../../domain/chains/solana/ports.ts';

export interface DecodedTransaction {
  transaction: Transaction;
  message: CompiledTransactionMessage;
  feePayer: string;
  /** The accounts that must sign, fee payer first. */
  signers: string[];
  blockhash: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const base64ToBytes = getBase64Encoder();
const bytesToBase64 = getBase64Decoder();
const bytesToBase58 = getBase58Decoder();
const addressBytes = getAddressEncoder();
const transactionDecoder = getTransactionDecoder();
const transactionEncoder = getTransactionEncoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
const messageEncoder = getCompiledTransactionMessageEncoder();

export const toBase64 = (bytes: Uint8Array | ReadonlyUint8Array): string => bytesToBase64.decode(bytes);
export const toBase58 = (bytes: Uint8Array | ReadonlyUint8Array): string => bytesToBase58.decode(bytes);
type ReadonlyUint8Array = Omit<Uint8Array, 'fill' | 'set' | 'copyWithin' | 'reverse' | 'sort'>;

/** Decodes the wire format (signatures + message) and the message itself; every byte must be used. */
export function decodeWireTransaction(encoded: string): DecodedTransaction {
  const invalid = (why: string) =>
    new ValidationError(`'transaction' is not a serialized Solana transaction in base64: ${why}`);
  if (encoded.length === 0 || !BASE64.test(encoded)) throw invalid('not canonical base64');
  const bytes = new Uint8Array(base64ToBytes.encode(encoded));
  try {
    const [transaction, end] = transactionDecoder.read(bytes, 0);
    if (end !== bytes.length) throw new Error(`${bytes.length - end} trailing bytes`);
    const [message, messageEnd] = messageDecoder.read(new Uint8Array(transaction.messageBytes), 0);
    if (messageEnd !== transaction.messageBytes.length) throw new Error('trailing bytes after the message');
    const feePayer = message.staticAccounts[0];
    if (!feePayer) throw new Error('the message has no accounts');
    const { numSignerAccounts, numReadonlySignerAccounts } = message.header;
    if (numSignerAccounts < 1) throw new Error('the message requires no signature (no fee payer)');
    if (numReadonlySignerAccounts >= numSignerAccounts) throw new Error('the fee payer is not writable');
    if (numSignerAccounts !== Object.keys(transaction.signatures).length)
      throw new Error('signature count does not match the message header');
    return {
      transaction,
      message,
      feePayer,
      signers: message.staticAccounts.slice(0, numSignerAccounts),
      blockhash: message.lifetimeToken,
    };
  } catch (err) {
    // Our checks say what is wrong; @solana/kit's decoders (SolanaError) speak of codecs, so they are said in general.
    throw invalid(
      (err as Error).name === 'SolanaError'
        ? 'its bytes do not decode as a transaction (truncated, or another format)'
        : (err as Error).message,
    );
  }
}

export function verifySignature(
  address: string,
  message: Uint8Array | ReadonlyUint8Array,
  signature: Uint8Array | ReadonlyUint8Array,
): boolean {
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(addressBytes.encode(address as Address)).toString('base64url') },
    format: 'jwk',
  });
  return verify(null, message as Uint8Array, key, signature as Uint8Array);
}

/** The reference's check and text: the relayer pays, so it must be the fee payer. */
export function checkFeePayer(decoded: Pick<DecodedTransaction, 'feePayer'>, relayer: string): void {
  if (decoded.feePayer !== relayer)
    throw new ValidationError(`Transaction fee payer ${decoded.feePayer} does not match relayer address ${relayer}`);
}

/**
 * Refuses what the relayer cannot sign alone: another fee payer (the reference's text), or another
 * required signature that is missing or does not verify. Returns whether the relayer is the only signer.
 */
export function checkRelayerCanSign(decoded: DecodedTransaction, relayer: string): { onlySigner: boolean } {
  checkFeePayer(decoded, relayer);
  for (const account of decoded.signers.slice(1)) {
    const signature = decoded.transaction.signatures[account as Address];
    if (!signature)
      throw new ValidationError(
        `the transaction needs a signature from ${account}, which the relayer cannot give; have ${account} sign it first`,
      );
    if (!verifySignature(account, decoded.transaction.messageBytes, signature))
      throw new ValidationError(`the signature of ${account} does not verify for this message`);
  }
  return { onlySigner: decoded.signers.length === 1 };
}

/** Signs the message as fee payer (first signature), keeping the other signatures. */
export async function signAsFeePayer(
  transaction: Transaction,
  feePayer: string,
  signer: SolanaSigner,
): Promise<{ wire: string; signature: string }> {
  const signature = (await signer.sign(new Uint8Array(transaction.messageBytes))) as SignatureBytes;
  const signed: Transaction = { ...transaction, signatures: { ...transaction.signatures, [feePayer]: signature } };
  return { wire: toBase64(transactionEncoder.encode(signed)), signature: toBase58(signature) };
}

/** The same message with another blockhash, every signature cleared (they signed the old message). */
export function withBlockhash(decoded: DecodedTransaction, blockhash: string): Transaction {
  // kit's message union also types message versions without `lifetimeToken`; legacy and v0 messages carry the blockhash there.
  const message = { ...decoded.message, lifetimeToken: blockhash } as unknown as CompiledTransactionMessage;
  const messageBytes = messageEncoder.encode(message) as TransactionMessageBytes;
  return { messageBytes, signatures: Object.fromEntries(decoded.signers.map((s) => [s, null])) } as Transaction;
}

/** What the message invokes and names, for the relayer's policies. */
export function messageFacts(messageBytes: Uint8Array | ReadonlyUint8Array): {
  programs: string[];
  accounts: string[];
  requiredSignatures: number;
} {
  const message = messageDecoder.decode(messageBytes as TransactionMessageBytes);
  const accounts = [...message.staticAccounts] as string[];
  // Legacy and v0 messages list instructions; v1 messages list instruction headers.
  const indexes =
    'instructions' in message
      ? message.instructions.map((ix) => ix.programAddressIndex)
      : message.instructionHeaders.map((h) => h.programAccountIndex);
  const programs = [...new Set(indexes.map((i) => accounts[i]!))];
  return { programs, accounts, requiredSignatures: message.header.numSignerAccounts };
}

/** Base64 of the compiled message, as `getFeeForMessage` takes it. */
export const messageBase64 = (transaction: Transaction): string => toBase64(transaction.messageBytes);
