// `relaybox keystore create`: a new secp256k1 key in a Web3 Secret Storage v3 keystore, as the reference's create_key
// tool writes it (scrypt n=2^13, r=8, p=1, AES-128-CTR, keccak MAC), which the local signer loads.
import { createCipheriv, randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { keccak256 } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { KeystoreCreateOptions } from './args.ts';

/** The reference's rule (helpers/create_key.rs validate_password), its sentences. */
function passwordProblem(password: string): string | undefined {
  if ([...password].length < 12) return 'Password must be at least 12 characters long';
  const upper = /\p{Lu}/u.test(password);
  const lower = /\p{Ll}/u.test(password);
  const digit = /[0-9]/.test(password);
  const special = /[^\p{L}\p{N}]/u.test(password);
  if (!upper || !lower || !digit || !special)
    return 'Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character';
  return undefined;
}

/** `key_<yyyyMMdd_HHmmss>.json` in local time, as the reference names a keystore when no --filename is given. */
function defaultFilename(now = new Date()): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `key_${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}_${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}.json`;
}

// eth-keystore's defaults, which the reference's tool uses: ~8 MiB of scrypt memory, well under a second.
const SCRYPT = { n: 8192, r: 8, p: 1, dklen: 32 };

/** A v3 keystore of a 32-byte secret (the address included, as geth and ethers write it). */
function encryptKeystore(secret: Buffer, password: string, address?: string): object {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = scryptSync(password, salt, SCRYPT.dklen, { N: SCRYPT.n, r: SCRYPT.r, p: SCRYPT.p });
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2);
  return {
    version: 3,
    id: randomUUID(),
    ...(address ? { address: address.slice(2).toLowerCase() } : {}),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'scrypt',
      kdfparams: { dklen: SCRYPT.dklen, n: SCRYPT.n, r: SCRYPT.r, p: SCRYPT.p, salt: salt.toString('hex') },
      mac,
    },
  };
}

/** Writes the keystore; the file and the EVM address of its key. Throws one sentence (never the password). */
export function createKeystore(
  options: KeystoreCreateOptions,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): { file: string; address: string } {
  const password = options.password ?? env.KEYSTORE_PASSPHRASE;
  if (password === undefined || password === '')
    throw new Error('a password is needed: give --password, or set KEYSTORE_PASSPHRASE (in the environment or .env)');
  if (!options.disablePasswordCheck) {
    const problem = passwordProblem(password);
    if (problem) throw new Error(`Invalid password: ${problem}`);
  }
  const filename = options.filename ?? defaultFilename();
  if (filename === '' || path.basename(filename) !== filename)
    throw new Error(`--filename must be a file name, not a path: '${filename}' (give the folder with --output-dir)`);
  const dir = path.resolve(cwd, options.outputDir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new Error(
      `Failed to create directory ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      { cause: err },
    );
  }
  const file = path.join(dir, filename);
  if (existsSync(file) && !options.force) throw new Error(`File ${file} already exists. Use --force to overwrite`);
  const key = generatePrivateKey();
  const address = privateKeyToAddress(key);
  const body = `${JSON.stringify(encryptKeystore(Buffer.from(key.slice(2), 'hex'), password, address), null, 2)}\n`;
  try {
    // Only its owner reads it: the passphrase is all that stands between a reader and the key.
    writeFileSync(file, body, { mode: 0o600, flag: options.force ? 'w' : 'wx' });
  } catch (err) {
    throw new Error(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      cause: err,
    });
  }
  return { file, address };
}
