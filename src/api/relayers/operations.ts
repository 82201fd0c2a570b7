// STUB (owned by the transactions work): validation + domain calls for relayers and transactions.
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Db } from '../../store/db.ts';
import type { RelayerOperations, TransactionEvents } from '../../domain/types.ts';
import { AppError } from '../../errors.ts';

export function createRelayerOperations(_deps: { db: Db; config: Config; logger: Logger; events: TransactionEvents }): RelayerOperations {
  const notYet = async (): Promise<never> => {
    throw new AppError('INTERNAL', { reason: 'not implemented' });
  };
  return {
    listRelayers: notYet,
    getRelayer: notYet,
    updateRelayer: notYet,
    sendTransaction: notYet,
    getTransaction: notYet,
    listTransactions: notYet,
    replaceTransaction: notYet,
    cancelTransaction: notYet,
  };
}
