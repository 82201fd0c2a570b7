// Test support: a deployment laid out as the OpenZeppelin Relayer's examples are (an /app-like folder holding
// config/config.json, config/networks/, config/keys/, plugins/<dir>/ and an .env), written here by us in that shape,
// and Relaybox started on it as a real child process from another working directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { makeKeystore } from '../support/keystore.ts';
import { eventually } from '../support/eventually.ts';

export interface Deployment {
  root: string;
  /** Keystore secrets by signer file name (`local-signer` → 32 bytes), for the addresses. */
  keys: Map<string, Buffer>;
  env: Record<string, string>;
  remove(): void;
}

/** The reference's local signer entry: a keystore under config/keys, its passphrase from the environment. */
export const localSigner = (id: string, file: string, passphraseVar: string) => ({
  id,
  type: 'local',
  config: { path: `config/keys/${file}.json`, passphrase: { type: 'env', value: passphraseVar } },
});

export const exampleNotification = {
  id: 'notification-example',
  type: 'webhook',
  url: '',
  signing_key: { type: 'env', value: 'WEBHOOK_SIGNING_KEY' },
};

export const sepoliaRelayer = (id = 'sepolia-example') => ({
  id,
  name: 'Sepolia Example',
  network: 'sepolia',
  paused: false,
  notification_id: 'notification-example',
  signer_id: 'local-signer',
  network_type: 'evm',
  policies: { min_balance: 0 },
});

export const stellarRelayer = (id: string, signer: string, policies: object) => ({
  id,
  name: id,
  network: 'testnet',
  paused: false,
  network_type: 'stellar',
  signer_id: signer,
  policies,
});

export interface DeploymentSpec {
  config: Record<string, unknown>;
  /** config/networks/<file>.json: `{ "networks": [...] }` each. */
  networkFiles?: Record<string, object[]>;
  /** config/keys/<name>.json keystores, each under the passphrase in the named variable. */
  keystores: Array<{ file: string; passphraseVar: string }>;
  /** plugins/<dir>/index.ts sources. */
  plugins?: Record<string, string>;
  /** The .env, as an operator fills the example's .env.example in. */
  dotenv: Record<string, string>;
}

/** Writes the deployment in a new temporary folder; keystores get fresh random keys. */
export function writeDeployment(spec: DeploymentSpec): Deployment {
  const root = mkdtempSync(path.join(tmpdir(), 'relaybox-app-'));
  mkdirSync(path.join(root, 'config', 'keys'), { recursive: true });
  writeFileSync(path.join(root, 'config', 'config.json'), JSON.stringify(spec.config, null, 2));
  if (spec.networkFiles) {
    mkdirSync(path.join(root, 'config', 'networks'));
    for (const [file, networks] of Object.entries(spec.networkFiles))
      writeFileSync(path.join(root, 'config', 'networks', `${file}.json`), JSON.stringify({ networks }, null, 2));
  }
  const env: Record<string, string> = { ...spec.dotenv };
  const keys = new Map<string, Buffer>();
  for (const { file, passphraseVar } of spec.keystores) {
    const secret = randomBytes(32);
    env[passphraseVar] ??= `passphrase-${randomBytes(8).toString('hex')}`;
    keys.set(file, secret);
    writeFileSync(
      path.join(root, 'config', 'keys', `${file}.json`),
      JSON.stringify(makeKeystore(secret, env[passphraseVar]!)),
    );
  }
  for (const [dir, source] of Object.entries(spec.plugins ?? {})) {
    mkdirSync(path.join(root, 'plugins', dir), { recursive: true });
    writeFileSync(path.join(root, 'plugins', dir, 'index.ts'), source);
    // As after `npm install` in the plugin's folder: its packages (the published plugins) next to it.
    symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'plugins', dir, 'node_modules'));
  }
  writeFileSync(
    path.join(root, '.env'),
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
  );
  return {
    root,
    keys,
    env: readDotenv(path.join(root, '.env')),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The .env as docker compose reads it: NAME=value lines, comments and blank lines skipped. */
function readDotenv(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (m && !line.trimStart().startsWith('#')) env[m[1]!] = m[2]!;
  }
  return env;
}

export const evmAddress = (secret: Buffer) => privateKeyToAccount(`0x${secret.toString('hex')}`).address;

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

export interface Running {
  child: ChildProcess;
  url: string;
  /** stdout and stderr so far. */
  output(): string;
  /** Every line of the log files under `dir` (LOG_MODE=file). */
  fileLines(dir: string): string[];
  stop(): Promise<void>;
}

function logFileLines(dir: string): string[] {
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.log'));
  } catch {
    return [];
  }
  return files.flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean));
}

/**
 * Starts `node src/main.ts` with `env` from a working directory of its own (neither the deployment nor the checkout).
 * Resolves once the `relaybox listening` line appears on stdout, or in the log files under `logDir` (LOG_MODE=file).
 */
export async function startRelaybox(env: Record<string, string>, logDir?: string): Promise<Running> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'relaybox-elsewhere-'));
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'src/main.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = once(child, 'exit');
  const lines = () => [...out.split('\n'), ...(logDir ? logFileLines(logDir) : [])];
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(cwd, { recursive: true, force: true });
  };
  // A start under load can take long; an exit ends the wait at once.
  const line = await eventually(
    () => lines().find((l) => l.includes('"relaybox listening"')) ?? (child.exitCode !== null ? 'exited' : undefined),
    { timeoutMs: 120_000 },
  );
  if (line && line !== 'exited') {
    const { port } = (JSON.parse(line) as { address: { port: number } }).address;
    return { child, url: `http://127.0.0.1:${port}`, output: () => out, fileLines: logFileLines, stop };
  }
  await stop();
  throw new Error(`Relaybox did not start:\n${out}${logDir ? logFileLines(logDir).join('\n') : ''}`);
}
