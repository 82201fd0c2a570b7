// Test support: Web3 Secret Storage v3 keystores written the way geth, ethers and the reference's own tool write them.
import { createCipheriv, pbkdf2Sync, randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { keccak256 } from 'viem';

/** A v3 keystore of `secret` (32 bytes) under `passphrase`. Small scrypt costs by default: tests stay fast. */
export function makeKeystore(
  secret: Buffer,
  passphrase: string,
  options: { kdf?: 'scrypt' | 'pbkdf2'; n?: number } = {},
): object {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const kdf = options.kdf ?? 'scrypt';
  const n = options.n ?? 1024;
  const derived =
    kdf === 'scrypt'
      ? scryptSync(passphrase, salt, 32, { N: n, r: 8, p: 1 })
      : pbkdf2Sync(passphrase, salt, 4096, 32, 'sha256');
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2);
  const kdfparams =
    kdf === 'scrypt'
      ? { dklen: 32, n, r: 8, p: 1, salt: salt.toString('hex') }
      : { dklen: 32, c: 4096, prf: 'hmac-sha256', salt: salt.toString('hex') };
  return {
    version: 3,
    id: randomUUID(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf,
      kdfparams,
      mac,
    },
  };
}
