// Transaction use cases: send, get, list, replace and cancel, each state change atomic with its event.
import { randomUUID } from 'node:crypto';
import { AppError, NotFoundError, ValidationError } from '../../errors.ts';
import type { Page, TransactionEvents, TransactionRecord, TransactionStatus } from '../types.ts';
import type { RelayerRow } from '../relayers/ports.ts';
import type { Store } from '../ports.ts';
import type { RelayerService } from '../relayers/service.ts';
import type { KeyedLock } from '../relayers/keyed-lock.ts';
import { evmRecordFields, prepareEvm, signEvm, type EvmBody } from './evm.ts';
import { solanaRecordFields, type SolanaBody } from './solana.ts';
import { stellarRecordFields, type StellarBody } from './stellar.ts';

export type TransactionBody = EvmBody | SolanaBody | StellarBody;

export interface TransactionService {
  send(relayer: RelayerRow, body: TransactionBody): Promise<TransactionRecord>;
  get(relayer: RelayerRow, id: string): Promise<TransactionRecord>;
  list(relayer: RelayerRow, page: number, perPage: number, status?: TransactionStatus): Promise<Page<TransactionRecord>>;
  replace(relayer: RelayerRow, id: string, body: TransactionBody): Promise<TransactionRecord>;
  cancel(relayer: RelayerRow, id: string): Promise<TransactionRecord>;
}

const REPLACEABLE: Record<RelayerRow['network_type'], ReadonlySet<TransactionStatus>> = {
  evm: new Set(['pending', 'sent', 'submitted']),
  // Solana and Stellar transactions are signed by the client; once sent they cannot be swapped.
  solana: new Set(['pending']),
  stellar: new Set(['pending']),
};

export function createTransactionService(deps: {
  relayers: RelayerService;
  store: Pick<Store, 'repos' | 'atomically'>;
  events: TransactionEvents;
  lock: KeyedLock;
}): TransactionService {
  const { relayers, events, lock } = deps;
  const { repos, atomically } = deps.store;

  const notFound = (relayer: RelayerRow, id: string) => new NotFoundError('NOT_FOUND', { reason: `transaction '${id}' not found for relayer '${relayer.id}'` });
  const refusePaused = (relayer: RelayerRow) => {
    if (relayer.paused) throw new ValidationError(`relayer '${relayer.id}' is paused; unpause it to send or replace transactions`);
  };

  /** Network-specific fields for a new transaction or a replacement (same nonce). */
  async function networkFields(relayer: RelayerRow, body: TransactionBody, nonce: number, previous?: TransactionRecord) {
    const network = relayers.network(relayer);
    if (relayer.network_type === 'evm') {
      const prepared = await prepareEvm(body as EvmBody, () => relayers.chain(relayer).fees(), previous as never);
      const signed = signEvm(relayers.signer(relayer.id).privateKey!, network.chain_id!, nonce, prepared);
      return evmRecordFields(prepared, signed, nonce, relayer.address);
    }
    if (relayer.network_type === 'solana') return solanaRecordFields(body as SolanaBody, relayer.address);
    return stellarRecordFields(body as StellarBody, relayer.network, network, relayer.address);
  }

  async function commitUpdate(record: TransactionRecord, previousStatus: TransactionStatus, version: number): Promise<TransactionRecord> {
    await atomically(async (tx) => {
      if (!(await tx.transactions.update(record, previousStatus, version))) {
        throw new AppError('INTERNAL', { reason: `transaction '${record.id}' was changed by another writer; retry` });
      }
      await events.transactionChanged(tx, record);
    });
    return record;
  }

  return {
    send(relayer, body) {
      refusePaused(relayer);
      return lock.run(relayer.id, async () => {
        // Re-read under the lock: the nonce and clock of the previous send are now committed.
        const current = await relayers.require(relayer.id);
        refusePaused(current);
        const evm = current.network_type === 'evm';
        const nonce = current.next_nonce;
        const fields = await networkFields(current, body, nonce);
        // created_at strictly increases per relayer, so newest-first listing has a stable order.
        const createdMs = Math.max(Date.now(), current.last_created_ms + 1);
        const record: TransactionRecord = {
          id: randomUUID(),
          relayer_id: current.id,
          status: 'pending',
          status_reason: null,
          created_at: new Date(createdMs).toISOString(),
          sent_at: null,
          confirmed_at: null,
          ...fields,
          ...(evm ? { hashes: [(fields as { hash: string }).hash] } : {}),
        };
        await atomically(async (tx) => {
          if (!(await tx.relayers.advance(current.id, nonce, evm ? nonce + 1 : nonce, createdMs))) {
            throw new AppError('INTERNAL', { reason: `relayer '${current.id}' nonce moved under another writer; retry` });
          }
          await tx.transactions.insert(record, createdMs, evm ? nonce : null);
          await events.transactionChanged(tx, record);
        });
        return record;
      });
    },

    async get(relayer, id) {
      const stored = await repos.transactions.get(relayer.id, id);
      if (!stored) throw notFound(relayer, id);
      return stored.record;
    },

    async list(relayer, page, perPage, status) {
      // Asked at once: one wait instead of two (on SQLite they also run back to back, so they agree).
      const [items, total] = await Promise.all([
        perPage === 0 ? [] : repos.transactions.list(relayer.id, status, perPage, (page - 1) * perPage),
        repos.transactions.count(relayer.id, status),
      ]);
      return { items, pagination: { current_page: page, per_page: perPage, total_items: total } };
    },

    replace(relayer, id, body) {
      return lock.run(relayer.id, async () => {
        const stored = await repos.transactions.get(relayer.id, id);
        if (!stored) throw notFound(relayer, id);
        const current = await relayers.require(relayer.id, 'NOT_FOUND');
        refusePaused(current);
        const old = stored.record;
        if (!REPLACEABLE[current.network_type].has(old.status)) {
          const allowed = [...REPLACEABLE[current.network_type]].join(', ');
          throw new ValidationError(`transaction '${id}' is ${old.status}; only ${allowed} ${current.network_type} transactions can be replaced`);
        }
        const fields = await networkFields(current, body, old.nonce as number, old);
        const record: TransactionRecord = { ...old, ...fields };
        if (current.network_type === 'evm') record.hashes = [...((old.hashes as string[] | undefined) ?? []), (fields as { hash: string }).hash];
        return commitUpdate(record, old.status, stored.version);
      });
    },

    cancel(relayer, id) {
      return lock.run(relayer.id, async () => {
        const stored = await repos.transactions.get(relayer.id, id);
        if (!stored) throw notFound(relayer, id);
        const old = stored.record;
        // Only what has not left the service can be withdrawn; sent/submitted may already be on chain.
        if (old.status !== 'pending') {
          throw new ValidationError(`transaction '${id}' is ${old.status}; only pending transactions can be canceled`);
        }
        return commitUpdate({ ...old, status: 'canceled', status_reason: 'canceled by request' }, old.status, stored.version);
      });
    },
  };
}
