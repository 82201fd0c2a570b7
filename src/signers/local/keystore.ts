// Web3 Secret Storage v3 keystores (the reference's local signer): scrypt or PBKDF2 key derivation, AES-128-CTR, keccak MAC.
import { createDecipheriv, pbkdf2Sync, scryptSync, timingSafeEqual } from 'node:crypto';
import { keccak256 } from 'viem';

interface KeystoreCrypto {
  cipher: string;
  cipherparams: { iv: string };
  ciphertext: string;
  kdf: string;
  kdfparams: { dklen: number; salt: string; n?: number; r?: number; p?: number; c?: number; prf?: string };
  mac: string;
}

const hex = (s: unknown, what: string): Buffer => {
  if (typeof s !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(s)) throw new Error(`${what} must be hex`);
  return Buffer.from(s.replace(/^0x/, ''), 'hex');
};

function deriveKey(c: KeystoreCrypto, passphrase: string): Buffer {
  const p = c.kdfparams ?? ({} as KeystoreCrypto['kdfparams']);
  const salt = hex(p.salt, 'kdfparams.salt');
  const dklen = p.dklen;
  if (!Number.isInteger(dklen) || dklen < 32) throw new Error('kdfparams.dklen must be an integer >= 32');
  if (c.kdf === 'scrypt') {
    const { n, r, p: parallel } = p;
    if (!Number.isInteger(n) || !Number.isInteger(r) || !Number.isInteger(parallel))
      throw new Error('scrypt kdfparams need integers n, r and p');
    // The default n = 2^18, r = 8 needs 256 MiB of scratch memory: allow it (and no more than twice that).
    try {
      return scryptSync(passphrase, salt, dklen, {
        N: n!,
        r: r!,
        p: parallel!,
        maxmem: 2 * 128 * n! * r! + 1024 * 1024,
      });
    } catch {
      // Node's own words ("Invalid scrypt params: …") name no field: n must be a power of 2, and the memory bounded.
      throw new Error(
        `scrypt kdfparams n=${n}, r=${r}, p=${parallel} cannot be used (n must be a power of 2 above 1, and 128·n·r bytes at most 2 GiB)`,
      );
    }
  }
  if (c.kdf === 'pbkdf2') {
    if (p.prf !== 'hmac-sha256') throw new Error(`pbkdf2 prf '${String(p.prf)}' is not supported (hmac-sha256 only)`);
    if (!Number.isInteger(p.c) || p.c! < 1) throw new Error('pbkdf2 kdfparams.c must be a positive integer');
    return pbkdf2Sync(passphrase, salt, p.c!, dklen, 'sha256');
  }
  throw new Error(`key derivation '${String(c.kdf)}' is not supported (scrypt or pbkdf2)`);
}

/**
 * The secret held by a v3 keystore (32 bytes for the reference's local signer), or an Error saying what is wrong:
 * not a v3 keystore, an unsupported cipher or KDF, or a wrong passphrase (the MAC does not match). Never includes
 * the passphrase or the secret in a message.
 */
export function decryptKeystore(json: unknown, passphrase: string): Buffer {
  const file = json as { version?: unknown; crypto?: KeystoreCrypto; Crypto?: KeystoreCrypto } | null;
  if (file === null || typeof file !== 'object' || file.version !== 3)
    throw new Error('not a Web3 Secret Storage keystore (version 3)');
  const c = file.crypto ?? file.Crypto;
  if (!c || typeof c !== 'object') throw new Error("the keystore has no 'crypto' section");
  if (c.cipher !== 'aes-128-ctr') throw new Error(`cipher '${String(c.cipher)}' is not supported (aes-128-ctr only)`);
  const derived = deriveKey(c, passphrase);
  const ciphertext = hex(c.ciphertext, 'crypto.ciphertext');
  const mac = Buffer.from(keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext]), 'bytes'));
  const expected = hex(c.mac, 'crypto.mac');
  if (expected.length !== mac.length || !timingSafeEqual(mac, expected))
    throw new Error('wrong passphrase (the keystore MAC does not match)');
  const decipher = createDecipheriv(
    'aes-128-ctr',
    derived.subarray(0, 16),
    hex(c.cipherparams?.iv, 'crypto.cipherparams.iv'),
  );
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}
