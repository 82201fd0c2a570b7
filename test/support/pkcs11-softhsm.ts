// Test support: a real software HSM (SoftHSM 2, Debian's softhsm2) with a fresh token in a temporary directory, its keys
// made by OpenSC's pkcs11-tool. `.ci/run` installs both; elsewhere the pkcs11 tests are skipped when they are missing.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where distributions put SoftHSM's PKCS#11 module (Debian/Ubuntu first; SOFTHSM2_MODULE overrides). */
const MODULE_PATHS = [
  '/usr/lib/softhsm/libsofthsm2.so',
  '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
  '/usr/lib64/pkcs11/libsofthsm2.so',
  '/usr/local/lib/softhsm/libsofthsm2.so',
];

/** The module path, or why the tests cannot run here. */
export function findSoftHsm(): { modulePath: string } | { missing: string } {
  const candidates = process.env.SOFTHSM2_MODULE ? [process.env.SOFTHSM2_MODULE] : MODULE_PATHS;
  const modulePath = candidates.find((p) => existsSync(p));
  if (!modulePath)
    return {
      missing: `no SoftHSM PKCS#11 module (looked at ${candidates.join(', ')}; apt-get install softhsm2 opensc)`,
    };
  for (const tool of ['softhsm2-util', 'pkcs11-tool']) {
    try {
      execFileSync(tool, ['--help'], { stdio: 'ignore' });
    } catch (err) {
      // --help exits non-zero on some versions; only a missing program matters.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return { missing: `${tool} is not installed (apt-get install softhsm2 opensc)` };
    }
  }
  return { modulePath };
}

export interface KeySpec {
  label: string;
  /** CKA_ID, hex. */
  id: string;
  /** pkcs11-tool's --key-type: EC:secp256k1, EC:edwards25519, EC:prime256v1. */
  type: string;
}

export interface SoftHsmToken {
  modulePath: string;
  tokenLabel: string;
  /** The slot id SoftHSM gave the token. */
  slot: number;
  pin: string;
  /** Each key's public point as the token holds it (CKA_EC_POINT, DER), read by pkcs11-tool: not through our adapter. */
  ecPoints: Record<string, Buffer>;
  /** Makes the public key object of `otherId` answer to `id` (whose own is deleted): two halves of different keys. */
  crossPublicKey(id: string, otherId: string): void;
  remove(): void;
}

/**
 * A new token with these keys. Sets SOFTHSM2_CONF in this process: SoftHSM reads it once, when the module is first
 * initialized, so one test file uses one token directory.
 */
export function createToken(modulePath: string, keys: KeySpec[]): SoftHsmToken {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-softhsm-'));
  const conf = path.join(dir, 'softhsm2.conf');
  writeFileSync(conf, `directories.tokendir = ${dir}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = conf;
  const tokenLabel = 'relaybox-test';
  const pin = randomBytes(6).toString('hex');
  const run = (tool: string, args: string[]) =>
    execFileSync(tool, args, { env: process.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const init = run('softhsm2-util', [
    '--init-token',
    '--free',
    '--label',
    tokenLabel,
    '--pin',
    pin,
    '--so-pin',
    randomBytes(6).toString('hex'),
  ]);
  const slot = Number(/reassigned to slot (\d+)/.exec(init)?.[1]);
  if (!Number.isSafeInteger(slot)) throw new Error(`softhsm2-util did not say which slot the token is in: ${init}`);
  const ecPoints: Record<string, Buffer> = {};
  for (const key of keys) {
    const out = run('pkcs11-tool', [
      '--module',
      modulePath,
      '--token-label',
      tokenLabel,
      '--login',
      '--pin',
      pin,
      '--keypairgen',
      '--key-type',
      key.type,
      '--label',
      key.label,
      '--id',
      key.id,
    ]);
    const point = /EC_POINT:\s+([0-9a-f]+)/.exec(out)?.[1];
    if (!point) throw new Error(`pkcs11-tool printed no EC_POINT for ${key.label}: ${out}`);
    ecPoints[key.label] = Buffer.from(point, 'hex');
  }
  const tool = (args: string[]) =>
    run('pkcs11-tool', ['--module', modulePath, '--token-label', tokenLabel, '--login', '--pin', pin, ...args]);
  const crossPublicKey = (id: string, otherId: string) => {
    tool(['--delete-object', '--type', 'pubkey', '--id', id]);
    tool(['--type', 'pubkey', '--id', otherId, '--set-id', id]);
  };
  return {
    modulePath,
    tokenLabel,
    slot,
    pin,
    ecPoints,
    crossPublicKey,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
