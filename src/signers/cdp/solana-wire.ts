// A Solana message as CDP's sign/transaction takes it (a wire transaction with empty signature slots), and the
// signature of one account taken out of the signed transaction it answers.

/** compact-u16 (Solana's "shortvec") length prefix. */
function shortvec(n: number): number[] {
  const out: number[] = [];
  for (let rest = n; ; ) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) return [...out, byte];
    out.push(byte | 0x80);
  }
}

function readShortvec(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[at + i];
    if (byte === undefined) break;
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 };
  }
  throw new Error('a malformed length prefix');
}

/** The message's signers: the first `numRequiredSignatures` of its account keys (legacy and versioned messages). */
export function requiredSigners(message: Uint8Array): Uint8Array[] {
  const header = (message[0]! & 0x80) !== 0 ? 1 : 0;
  const required = message[header];
  if (required === undefined) throw new Error('the message is empty');
  const { value: keyCount, next } = readShortvec(message, header + 3);
  if (keyCount < required || message.length < next + keyCount * 32)
    throw new Error('the message has fewer account keys than signers');
  return Array.from({ length: required }, (_, i) => message.subarray(next + i * 32, next + (i + 1) * 32));
}

/** The wire transaction of `message` with every signature slot empty (zeros). */
export function unsignedWire(message: Uint8Array): Uint8Array {
  const count = requiredSigners(message).length;
  return Uint8Array.from([...shortvec(count), ...new Uint8Array(count * 64), ...message]);
}

/** The signature in slot `index` of a signed wire transaction whose message is `message`, or an Error. */
export function signatureAt(wire: Uint8Array, message: Uint8Array, index: number): Uint8Array {
  const { value: count, next } = readShortvec(wire, 0);
  const signedMessage = wire.subarray(next + count * 64);
  if (index >= count || Buffer.compare(Buffer.from(signedMessage), Buffer.from(message)) !== 0) {
    throw new Error('the signed transaction answered is not the one sent');
  }
  return wire.slice(next + index * 64, next + (index + 1) * 64);
}
