// SQLite repository for relayers (seeded from config) and the notification lookup PATCH needs.
import type { Db } from '../db.ts';
import type { RelayerRow, RelayerSeed, RelayersRepo } from '../../domain/relayers/ports.ts';
import type { SyncOf } from './sync-ops.ts';

interface Row extends Omit<RelayerRow, 'paused'> {
  paused: number;
}

const COLUMNS = 'id, name, network, network_type, signer_id, address, paused, notification_id, next_nonce, last_created_ms';

const toRelayer = (row: Row): RelayerRow => ({ ...row, paused: row.paused === 1 });

/** Every statement is prepared here, once. Seeding policy: see RelayersRepo.seed. */
export function createRelayersRepo(db: Db): SyncOf<RelayersRepo> {
  const upsert = db.prepare(`
    INSERT INTO relayers (id, name, network, network_type, signer_id, address, paused, notification_id, active, next_nonce, created_at, updated_at)
    VALUES (@id, @name, @network, @network_type, @signer_id, @address, @paused, @notification_id, 1, @initial_nonce, @now, @now)
    ON CONFLICT (id) DO UPDATE SET
      name = excluded.name, network = excluded.network, network_type = excluded.network_type,
      signer_id = excluded.signer_id, address = excluded.address, active = 1,
      next_nonce = MAX(relayers.next_nonce, excluded.next_nonce), updated_at = excluded.updated_at`);
  const deactivateAll = db.prepare('UPDATE relayers SET active = 0');
  const getOne = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM relayers WHERE id = ? AND active = 1`);
  const listPage = db.prepare<[number, number], Row>(`SELECT ${COLUMNS} FROM relayers WHERE active = 1 ORDER BY id LIMIT ? OFFSET ?`);
  const countAll = db.prepare<[], number>('SELECT COUNT(*) FROM relayers WHERE active = 1').pluck();
  const setPaused = db.prepare('UPDATE relayers SET paused = ?, updated_at = ? WHERE id = ?');
  const setNotification = db.prepare('UPDATE relayers SET notification_id = ?, updated_at = ? WHERE id = ?');
  const notification = db.prepare<[string], number>('SELECT 1 FROM notifications WHERE id = ?').pluck();
  const advance = db.prepare('UPDATE relayers SET next_nonce = ?, last_created_ms = ? WHERE id = ? AND next_nonce = ?');

  const seedAll = db.transaction((seeds: readonly RelayerSeed[]) => {
    deactivateAll.run();
    const now = new Date().toISOString();
    for (const s of seeds) upsert.run({ ...s, paused: s.paused ? 1 : 0, now });
  });

  return {
    seed: (seeds) => seedAll(seeds),
    get(id) {
      const row = getOne.get(id);
      return row && toRelayer(row);
    },
    // The transaction's BEGIN IMMEDIATE already holds SQLite's one write lock: no other writer can move the row.
    getForUpdate(id) {
      const row = getOne.get(id);
      return row && toRelayer(row);
    },
    list: (limit, offset) => listPage.all(limit, offset).map(toRelayer),
    count: () => countAll.get() ?? 0,
    update(id, changes) {
      const now = new Date().toISOString();
      if (changes.paused !== undefined) setPaused.run(changes.paused ? 1 : 0, now, id);
      if (changes.notification_id !== undefined) setNotification.run(changes.notification_id, now, id);
    },
    notificationExists: (id) => notification.get(id) === 1,
    advance: (id, expectedNonce, nextNonce, lastCreatedMs) => advance.run(nextNonce, lastCreatedMs, id, expectedNonce).changes === 1,
  };
}
