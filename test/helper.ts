// Test harness: the real app on an ephemeral loopback port, a temporary SQLite file, captured logs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, type TestContext } from 'node:test';
import { Writable } from 'node:stream';
import { loadConfig, type ConfigFile } from '../src/config/config.ts';
import { createLogger, secretsOf } from '../src/observability/logger.ts';
import { createApp, type App } from '../src/app.ts';
import type { SignerResolver } from '../src/domain/signers/ports.ts';
import type { ResolveHost } from '../src/net/url-guard.ts';
import type { RuntimeFaults } from '../src/plugin-host/client.ts';
import { noDevnetUrl } from './support/no-devnet.ts';
import { startNoRuntime } from './support/no-runtime.ts';

export const API_KEY = 'test-api-key-0123456789abcdef0123456789';

export interface TestServer {
  app: App;
  url: string;
  dataDir: string;
  pluginsDir: string;
  /** Every pino line written so far, parsed. */
  logs: Array<Record<string, unknown>>;
  /** Raw text of every log line, to look for leaked secrets. */
  rawLogs(): string;
  request(method: string, urlPath: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (string) instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** false: no Authorization header. A string: that header value. Default: the valid key. */
  auth?: false | string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface BuildOptions {
  env?: Record<string, string>;
  /** Replaces parts of the example config file. */
  config?: Partial<ConfigFile>;
  /** Files written into the temporary plugins dir before start: name → content. */
  plugins?: Record<string, string>;
  /** Reuse a data dir (restart tests). */
  dataDir?: string;
  /** In place of the signer adapters (test/support/signer-faults.ts: a signer that is slow, fails or hangs). */
  resolveSigner?: SignerResolver;
  /** In place of the system resolver for the URL guard (test/security/webhook-url-guard.test.ts: DNS rebinding). */
  resolveHost?: ResolveHost;
  /**
   * Start the example config's anvil devnet: a test that sends EVM transactions to it asks for it. Without it the
   * example's devnet network points at a listener that is no chain (its relayer and the other networks stay).
   */
  devnet?: boolean;
  /**
   * Start the plugin runtime process: a test that calls plugins, or reads the runtime's readiness, asks for it
   * (`plugins` implies it). Without it no runtime process starts (test/support/no-runtime.ts: calls answer 503).
   */
  runtime?: boolean;
  /** Faults the plugin runtime injects (test/security/worker-availability.test.ts: a worker that stalls); implies `runtime`. */
  runtimeFaults?: RuntimeFaults;
  /** How long a call arriving during a runtime restart waits for the next runtime (the app's 5 s by default). */
  runtimeRestartHoldMs?: number;
}

/**
 * The config file the test app reads, or undefined for the example config as it is: the test's `config` over the
 * example's. Unless the test gives its own `networks`, the example's networks point at a loopback listener that is no
 * chain (test/support/no-devnet.ts): the devnet network, unless `devnet: true` starts its anvil, and the public ones
 * (sepolia, Solana devnet, Stellar testnet) always, so a test never reaches the internet and the example relayers'
 * background balance checks fail at once instead of through the RPC pool's retry rounds (~0.5 s of every close).
 * Their relayers stay: a test that only reads them needs no chain. A config the test names through env is left alone.
 */
async function testConfigFile(env: Record<string, string>, options: BuildOptions): Promise<ConfigFile | undefined> {
  if (['CONFIG_PATH', 'CONFIG_DIR', 'CONFIG_FILE_NAME', 'IN_DOCKER'].some((name) => options.env?.[name]))
    return undefined;
  const base = loadConfig({ ...env, CONFIG_PATH: '' }).file;
  const file = { ...base, ...options.config };
  if (options.config?.networks) return file;
  const url = await noDevnetUrl();
  const networks = base.networks.map((n) => {
    if (n.type === 'evm' && n.devnet) {
      if (options.devnet) return n;
      const { devnet: _devnet, ...rest } = n;
      return { ...rest, rpc_urls: [url] };
    }
    return { ...n, rpc_urls: [url] };
  });
  return { ...file, networks } as ConfigFile;
}

/** Starts the real app; closes it and removes its temp dirs via t.after. */
export async function build(t: TestContext | undefined, options: BuildOptions = {}): Promise<TestServer> {
  const root = mkdtempSync(path.join(tmpdir(), 'relaybox-test-'));
  const dataDir = options.dataDir ?? path.join(root, 'data');
  const pluginsDir = path.join(root, 'plugins');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(pluginsDir, { recursive: true });
  for (const [name, content] of Object.entries(options.plugins ?? {})) {
    const file = path.join(pluginsDir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  const env: Record<string, string> = {
    API_KEY,
    DATA_DIR: dataDir,
    PLUGINS_DIR: pluginsDir,
    LOG_LEVEL: 'debug',
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    ...options.env,
  };
  const file = await testConfigFile(env, options);
  if (file) {
    const configPath = path.join(root, 'config.json');
    writeFileSync(configPath, JSON.stringify(file));
    env.CONFIG_PATH = configPath;
  }
  const config = loadConfig(env);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const logger = createLogger('debug', sink, secretsOf(config, { ...process.env, ...env }));
  const { resolveSigner, resolveHost, runtimeFaults, runtimeRestartHoldMs } = options;
  // A test that writes plugins calls them: it gets the runtime without asking.
  const runtime = options.runtime || options.plugins !== undefined || runtimeFaults !== undefined;
  const app = await createApp(config, logger, {
    ...(resolveSigner ? { resolveSigner } : {}),
    ...(resolveHost ? { resolveHost } : {}),
    ...(runtimeFaults ? { runtimeFaults } : {}),
    ...(runtimeRestartHoldMs !== undefined ? { runtimeRestartHoldMs } : {}),
    ...(runtime ? {} : { startRuntime: startNoRuntime }),
  });
  const server = await app.listen(0, '127.0.0.1');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('server did not bind a TCP port');
  const url = `http://127.0.0.1:${address.port}`;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    if (!options.dataDir) rmSync(root, { recursive: true, force: true });
  };
  t?.after(close);
  return {
    app,
    url,
    dataDir,
    pluginsDir,
    get logs() {
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    rawLogs: () => lines.join('\n'),
    request: (method, urlPath, opts = {}) => request(url, method, urlPath, opts),
    close,
  };
}

/**
 * One app for a file's tests that only read (no writes, no log or counter assertions another test could move): built
 * on first use, closed once the file's tests have run. `const app = shared();` at module level, `const s = await app();`
 * in each test; `shared(() => buildWithRelayers(undefined))` shares another builder's app.
 */
export function shared<S extends TestServer = TestServer>(
  start: BuildOptions | (() => Promise<S>) = {},
): () => Promise<S> {
  let started: Promise<S> | undefined;
  after(async () => {
    if (started) await (await started).close();
  });
  return () => (started ??= typeof start === 'function' ? start() : (build(undefined, start) as Promise<S>));
}

export async function request(
  base: string,
  method: string,
  urlPath: string,
  options: RequestOptions = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== false) headers.authorization ??= options.auth ?? `Bearer ${API_KEY}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  // A Uint8Array view of a Buffer: BodyInit as the DOM's typings (some clients' .d.ts bring them in) define it.
  const res = await fetch(base + urlPath, {
    method,
    headers,
    body: Buffer.isBuffer(body) ? new Uint8Array(body) : body,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
