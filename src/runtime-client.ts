// STUB (owned by the runtime work): the only door from src/ into runtime/.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './store/db.ts';
import type { RelayerOperations } from './domain/types.ts';

export interface RuntimeClient {
  close(): Promise<void>;
}

export async function createRuntimeClient(_deps: { config: Config; logger: Logger; host: { relayers: RelayerOperations; db: Db } }): Promise<RuntimeClient> {
  return { async close() {} };
}
