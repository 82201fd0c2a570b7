// Solana transactions (request shape B): the base64 wire transaction must decode as one.
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { ValidationError } from '../../errors.ts';

export interface SolanaBody {
  transaction: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
const base64 = getBase64Encoder();

/** Decodes the wire format (signatures + message) and the message itself; every byte must be used. */
export function decodeSolanaTransaction(encoded: string): { feePayer: string; signatures: number } {
  const invalid = (why: string) => new ValidationError(`'transaction' is not a serialized Solana transaction in base64: ${why}`);
  if (encoded.length === 0 || !BASE64.test(encoded)) throw invalid('not canonical base64');
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(base64.encode(encoded));
  } catch {
    throw invalid('not canonical base64');
  }
  try {
    const [tx, end] = transactionDecoder.read(bytes, 0);
    if (end !== bytes.length) throw new Error(`${bytes.length - end} trailing bytes`);
    const [message, messageEnd] = messageDecoder.read(new Uint8Array(tx.messageBytes), 0);
    if (messageEnd !== tx.messageBytes.length) throw new Error('trailing bytes after the message');
    const feePayer = message.staticAccounts[0];
    if (!feePayer) throw new Error('the message has no accounts');
    if (message.header.numSignerAccounts !== Object.keys(tx.signatures).length) throw new Error('signature count does not match the message header');
    return { feePayer, signatures: Object.keys(tx.signatures).length };
  } catch (err) {
    throw invalid((err as Error).message);
  }
}

export function solanaRecordFields(body: SolanaBody, from: string) {
  const decoded = decodeSolanaTransaction(body.transaction);
  return { from, fee_payer: decoded.feePayer, transaction: body.transaction };
}
