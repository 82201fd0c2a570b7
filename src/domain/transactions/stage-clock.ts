// Where a transaction's time goes: the seconds between created, sent, submitted, mined and confirmed, observed as each
// committed change lands, and its re-prices and re-broadcasts once it ends. Stamps the records keep are used where they
// exist (created_at; sent_at, the first submission, for submitted → mined); entering sent and mined is remembered by
// this instance while the transaction is in flight, so a stage whose start another instance (or a restart) saw is not
// observed rather than guessed.
import { FINAL_STATUSES, type TransactionRecord, type TransactionStatus } from '../types.ts';

export type Stage = 'created_to_sent' | 'sent_to_submitted' | 'submitted_to_mined' | 'mined_to_confirmed';

export interface StageObserver {
  stage(network: string, stage: Stage, seconds: number): void;
  /** A transaction ended: its versions signed after the first (fee bumps, replacements, NOOPs) and its broadcasts of a version already broadcast. */
  ended(network: string, reprices: number, rebroadcasts: number): void;
}

interface InFlight {
  sentAt?: number;
  minedAt?: number;
  broadcasts: number;
  hashes: Set<string>;
}

/** In-flight transactions remembered at most; the oldest are dropped past it (their later stages go unobserved). */
const MAX_TRACKED = 50_000;

const ms = (iso: unknown) => (typeof iso === 'string' ? Date.parse(iso) : Number.NaN);

export interface StageClock {
  /** A committed write of `record` (`from`: its status before, null for a new one). */
  changed(network: string, record: TransactionRecord, from: TransactionStatus | null): void;
  /** A version of the transaction is being broadcast (EVM): counts re-broadcasts of the same version. */
  broadcast(record: TransactionRecord): void;
}

export function createStageClock(observer: StageObserver, now: () => number = Date.now): StageClock {
  const tracked = new Map<string, InFlight>();
  const entry = (id: string): InFlight => {
    let e = tracked.get(id);
    if (!e) {
      if (tracked.size >= MAX_TRACKED) tracked.delete(tracked.keys().next().value!);
      e = { broadcasts: 0, hashes: new Set() };
      tracked.set(id, e);
    }
    return e;
  };
  const observe = (network: string, stage: Stage, fromMs: number | undefined, toMs: number) => {
    if (fromMs !== undefined && Number.isFinite(fromMs) && Number.isFinite(toMs))
      observer.stage(network, stage, Math.max(toMs - fromMs, 0) / 1000);
  };

  function ended(network: string, record: TransactionRecord) {
    const e = tracked.get(record.id);
    tracked.delete(record.id);
    const versions = Array.isArray(record.hashes) ? record.hashes.length : 1;
    observer.ended(network, Math.max(versions - 1, 0), e ? Math.max(e.broadcasts - e.hashes.size, 0) : 0);
  }

  return {
    changed(network, record, from) {
      const to = record.status;
      const at = now();
      if (to === 'sent' && from !== 'sent') {
        if (from === null || from === 'pending') observe(network, 'created_to_sent', ms(record.created_at), at);
        // Again for each version signed later (a re-price): its own wait for the node's answer.
        entry(record.id).sentAt = at;
      }
      if (to === 'submitted' && (from === 'sent' || from === 'pending')) {
        const e = tracked.get(record.id);
        observe(network, 'sent_to_submitted', e?.sentAt, at);
        if (e) delete e.sentAt;
      }
      if (to === 'mined' && from !== 'mined') {
        observe(network, 'submitted_to_mined', record.sent_at ? ms(record.sent_at) : undefined, at);
        entry(record.id).minedAt = at;
      }
      if (to === 'confirmed' && from !== 'confirmed')
        observe(
          network,
          'mined_to_confirmed',
          tracked.get(record.id)?.minedAt,
          record.confirmed_at ? ms(record.confirmed_at) : at,
        );
      if (FINAL_STATUSES.has(to) && (from === null || !FINAL_STATUSES.has(from))) ended(network, record);
    },
    broadcast(record) {
      const e = entry(record.id);
      e.broadcasts += 1;
      if (typeof record.hash === 'string') e.hashes.add(record.hash);
    },
  };
}
