// The service under chaos: `node src/main.ts` as a real process on a config written for the run, killable with
// SIGKILL and started again on the same SQLite store, which the suite also reads (read-only) to sample its schedule.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { API_KEY } from '../helper.ts';
import { startService, type ServiceProcess } from '../faults/support.ts';
import { DB_FILE_NAME } from '../../src/store/sqlite/db.ts';
import { BLOCK_MS, CHAIN_ID } from './chain.ts';

/** anvil's account #0 (the publicly known development key): the relayer's key. */
export const RELAYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const RELAYER_ADDRESS = privateKeyToAccount(RELAYER_KEY).address;
export const RELAYER_ID = 'chaos';

/**
 * A key pool of `n` keys (issue 44): the relayer's key first (so RELAYER_ADDRESS stays the relayer's address), then
 * publicly derivable development keys, funded by the runner.
 */
export function poolKeys(n: number): Hex[] {
  return [
    RELAYER_KEY,
    ...Array.from({ length: n - 1 }, (_, k) => `0x${(0xc4a0_0000 + k).toString(16).padStart(64, '0')}` as Hex),
  ];
}

export interface ServiceOptions {
  rpcUrls: string[];
  confirmations?: number;
  policies?: Record<string, unknown>;
  /** Merged into the network's config (e.g. another network kind). */
  network?: Record<string, unknown>;
  env?: Record<string, string>;
  /** The relayer is a key pool of these keys (poolKeys), `signer_ids` in order. */
  pool?: Hex[];
}

export interface ChaosService {
  url(): string;
  /** SIGKILL to the process group, mid-whatever. */
  kill(): Promise<void>;
  /** A new process on the same store and config; resolves once it listens. */
  restart(): Promise<string>;
  /** Read-only view of the store (WAL: the service keeps writing while we read). */
  db(): Database.Database;
  output(): string;
  stop(): Promise<void>;
}

function writeConfig(dir: string, o: ServiceOptions): string {
  const file = path.join(dir, 'config.json');
  const network = {
    type: 'evm',
    network: 'chaos',
    chain_id: CHAIN_ID,
    required_confirmations: o.confirmations ?? 1,
    symbol: 'ETH',
    average_blocktime_ms: BLOCK_MS,
    features: ['eip1559'],
    // The first URL is preferred: faults are injected there.
    rpc_urls: o.rpcUrls.map((url, i) => ({ url, weight: 100 - i })),
    ...o.network,
  };
  const keys = o.pool ?? [RELAYER_KEY];
  const ids = keys.map((_, k) => (k === 0 ? 'key' : `key-${k}`));
  const relayer = {
    id: RELAYER_ID,
    name: 'chaos',
    network: 'chaos',
    ...(keys.length > 1 ? { signer_ids: ids } : { signer_id: 'key' }),
    ...(o.policies ? { policies: o.policies } : {}),
  };
  writeFileSync(
    file,
    JSON.stringify({
      networks: [network],
      signers: keys.map((private_key, k) => ({ id: ids[k], type: 'local', development: true, private_key })),
      relayers: [relayer],
      notifications: [],
      plugins: [],
    }),
  );
  return file;
}

export async function startChaosService(o: ServiceOptions): Promise<ChaosService> {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-chaos-'));
  const dataDir = path.join(dir, 'data');
  const env = {
    API_KEY,
    DATA_DIR: dataDir,
    CONFIG_PATH: writeConfig(dir, o),
    RATE_LIMIT_RPS: '1000000',
    RATE_LIMIT_BURST: '1000000',
    ...o.env,
  };
  let proc: ServiceProcess = startService(env);
  let url = await proc.listening;
  let db: Database.Database | undefined;
  return {
    url: () => url,
    async kill() {
      await proc.killHard();
    },
    async restart() {
      proc = startService(env);
      url = await proc.listening;
      return url;
    },
    db: () => (db ??= new Database(path.join(dataDir, DB_FILE_NAME), { readonly: true, fileMustExist: true })),
    output: () => proc.output(),
    async stop() {
      db?.close();
      await proc.killHard();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
