// What a PKCS#11 key object says about itself, read without the library: which curve its CKA_EC_PARAMS name and the
// public point its CKA_EC_POINT holds. Only secp256k1 (EVM) and Ed25519 (Solana, Stellar) keys sign here.

/** CKA_KEY_TYPE values (PKCS#11 3.0): CKK_EC, CKK_EC_EDWARDS. */
export const CKK_EC = 0x03;
export const CKK_EC_EDWARDS = 0x40;

export type Curve = 'secp256k1' | 'ed25519';

// CKA_EC_PARAMS is DER: an OBJECT IDENTIFIER or, for Edwards curves, a PrintableString naming the curve (PKCS#11 3.0
// allows both; SoftHSM and OpenSC write "edwards25519").
const SECP256K1 = '06052b8104000a'; // 1.3.132.0.10
const ED25519_OID = '06032b6570'; // 1.3.101.112 (id-Ed25519, RFC 8410)
const ED25519_NAMES = new Set(['edwards25519', 'ed25519']);
// Names for the refusals of other curves, so an operator sees which key they pointed at.
const KNOWN_OIDS: Record<string, string> = {
  '06082a8648ce3d030107': 'P-256 (prime256v1)',
  '06052b81040022': 'P-384 (secp384r1)',
  '06052b81040023': 'P-521 (secp521r1)',
  '06032b6571': 'Ed448',
};

/** The curve of a key from its CKA_KEY_TYPE and CKA_EC_PARAMS, or a description of what it is instead. */
export function curveOf(keyType: number, params: Uint8Array | undefined): { curve: Curve } | { other: string } {
  if (keyType !== CKK_EC && keyType !== CKK_EC_EDWARDS)
    return { other: `a key of type 0x${keyType.toString(16)} (not an EC key)` };
  const hex = params ? Buffer.from(params).toString('hex') : '';
  if (keyType === CKK_EC && hex === SECP256K1) return { curve: 'secp256k1' };
  if (keyType === CKK_EC_EDWARDS && (hex === ED25519_OID || ED25519_NAMES.has(printableString(params))))
    return { curve: 'ed25519' };
  const name = KNOWN_OIDS[hex] ?? (printableString(params) || `EC parameters ${hex || '(none)'}`);
  return { other: `an ${keyType === CKK_EC ? 'EC' : 'Edwards'} key on ${name}` };
}

/** The text of a DER PrintableString (tag 0x13), lower-cased, or ''. */
function printableString(der: Uint8Array | undefined): string {
  if (!der || der.length < 2 || der[0] !== 0x13 || der[1] !== der.length - 2) return '';
  return Buffer.from(der.subarray(2)).toString('latin1').toLowerCase();
}

/**
 * The public point of CKA_EC_POINT: PKCS#11 wraps it in a DER OCTET STRING, some modules give it bare. secp256k1: the
 * 65-byte uncompressed point (04 ‖ x ‖ y); Ed25519: the 32-byte key (RFC 8032).
 */
export function publicPoint(curve: Curve, ecPoint: Uint8Array): Uint8Array {
  const size = curve === 'secp256k1' ? 65 : 32;
  if (ecPoint.length === size + 2 && ecPoint[0] === 0x04 && ecPoint[1] === size) return ecPoint.subarray(2);
  if (ecPoint.length === size && (curve === 'ed25519' || ecPoint[0] === 0x04)) return ecPoint;
  throw new Error(`the public key's CKA_EC_POINT (${ecPoint.length} bytes) is not a ${curve} point`);
}
