// SQLite repository for relayers (seeded from config, created through the API) and the notification lookup PATCH needs.
import type { Db } from './db.ts';
import type { LanesStore, RelayerRow, RelayerSeed, RelayersRepo } from '../../domain/relayers/ports.ts';
import type { SyncOf } from './sync-ops.ts';
import { createFundsOps } from './transactions-repo.ts';

interface Row {
  id: string;
  name: string;
  network: string;
  network_type: RelayerRow['network_type'];
  signer_id: string;
  address: string;
  paused: number;
  notification_id: string | null;
  policies: string | null;
  custom_rpc_urls: string | null;
  system_disabled: number;
  disabled_reason: string | null;
  source: RelayerRow['source'];
  next_nonce: number;
  last_created_ms: number;
}

const COLUMNS =
  'id, name, network, network_type, signer_id, address, paused, notification_id, policies, custom_rpc_urls, system_disabled, disabled_reason, source, next_nonce, last_created_ms';
const VISIBLE = 'active = 1 AND deleted_at IS NULL';

const json = (text: string | null) => (text === null ? null : JSON.parse(text));
const text = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

const toRelayer = (row: Row): RelayerRow => ({
  ...row,
  paused: row.paused === 1,
  policies: json(row.policies),
  custom_rpc_urls: json(row.custom_rpc_urls),
  system_disabled: row.system_disabled === 1,
  disabled_reason: json(row.disabled_reason),
});

const params = (s: RelayerSeed, now: string) => ({
  ...s,
  paused: s.paused ? 1 : 0,
  policies: text(s.policies),
  custom_rpc_urls: text(s.custom_rpc_urls),
  now,
});

const INSERT_COLUMNS =
  'id, name, network, network_type, signer_id, address, paused, notification_id, policies, custom_rpc_urls, source, seed_hash, active, next_nonce, created_at, updated_at';
const values = (source: string) =>
  `VALUES (@id, @name, @network, @network_type, @signer_id, @address, @paused, @notification_id, @policies, @custom_rpc_urls, '${source}', @seed_hash, 1, @initial_nonce, @now, @now)`;
const changed = 'relayers.seed_hash IS NOT excluded.seed_hash';
const fromConfig = (column: string) => `${column} = IIF(${changed}, excluded.${column}, relayers.${column})`;

/** Seeding: config-owned fields rewritten only when the entry's fingerprint changed; API relayers never touched. */
const SEED_SQL = `
  INSERT INTO relayers (${INSERT_COLUMNS}) ${values('config')}
  ON CONFLICT (id) DO UPDATE SET
    ${['name', 'network', 'network_type', 'signer_id', 'address', 'policies', 'custom_rpc_urls'].map(fromConfig).join(', ')},
    deleted_at = IIF(${changed}, NULL, relayers.deleted_at),
    seed_hash = excluded.seed_hash, active = 1,
    next_nonce = MAX(relayers.next_nonce, excluded.next_nonce), updated_at = excluded.updated_at
  WHERE relayers.source = 'config'`;

/** Creation through the API; a deleted relayer's id may be taken again (DELETE refused while transactions were in flight). */
const CREATE_SQL = `
  INSERT INTO relayers (${INSERT_COLUMNS}) ${values('api')}
  ON CONFLICT (id) DO UPDATE SET
    name = excluded.name, network = excluded.network, network_type = excluded.network_type, signer_id = excluded.signer_id,
    address = excluded.address, paused = excluded.paused, notification_id = excluded.notification_id, policies = excluded.policies,
    custom_rpc_urls = excluded.custom_rpc_urls, source = 'api', seed_hash = excluded.seed_hash, active = 1, deleted_at = NULL,
    system_disabled = 0, disabled_reason = NULL, next_nonce = MAX(relayers.next_nonce, excluded.next_nonce), updated_at = excluded.updated_at
  WHERE relayers.deleted_at IS NOT NULL`;

/** Every statement is prepared here, once. Seeding policy: see RelayersRepo.seed. */
export function createRelayersRepo(db: Db): Omit<SyncOf<RelayersRepo>, keyof LanesStore> {
  const upsert = db.prepare(SEED_SQL);
  const deactivateConfig = db.prepare("UPDATE relayers SET active = 0 WHERE source = 'config'");
  const insert = db.prepare(CREATE_SQL);
  const getOne = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM relayers WHERE id = ? AND ${VISIBLE}`);
  const listPage = db.prepare<[number, number], Row>(
    `SELECT ${COLUMNS} FROM relayers WHERE ${VISIBLE} ORDER BY id LIMIT ? OFFSET ?`,
  );
  const countAll = db.prepare<[], number>(`SELECT COUNT(*) FROM relayers WHERE ${VISIBLE}`).pluck();
  const setField = (column: string) => db.prepare(`UPDATE relayers SET ${column} = ?, updated_at = ? WHERE id = ?`);
  const setters = {
    name: setField('name'),
    paused: setField('paused'),
    notification_id: setField('notification_id'),
    policies: setField('policies'),
    custom_rpc_urls: setField('custom_rpc_urls'),
  };
  const setDisabled = db.prepare(
    'UPDATE relayers SET system_disabled = ?, disabled_reason = ?, updated_at = ? WHERE id = ?',
  );
  const markDeleted = db.prepare(`UPDATE relayers SET deleted_at = ?, updated_at = ? WHERE id = ? AND ${VISIBLE}`);
  // A key pool's other keys count too (relayer_lanes, issue 44).
  const bySigner = db
    .prepare<[string, string], string>(
      `SELECT id FROM relayers WHERE (signer_id = ? OR id IN (SELECT relayer_id FROM relayer_lanes WHERE signer_id = ?)) AND ${VISIBLE} ORDER BY id LIMIT 10`,
    )
    .pluck();
  const notification = db.prepare<[string], number>('SELECT 1 FROM notifications WHERE id = ?').pluck();
  const advance = db.prepare('UPDATE relayers SET next_nonce = ?, last_created_ms = ? WHERE id = ? AND next_nonce = ?');
  const { moveFunds, funds } = createFundsOps(db);
  const advanceFrom = db.prepare<[number, number, string, number, number], Row>(
    `UPDATE relayers SET next_nonce = ?, last_created_ms = ? WHERE id = ? AND next_nonce = ? AND last_created_ms = ? AND ${VISIBLE} RETURNING ${COLUMNS}`,
  );

  const seedAll = db.transaction((seeds: readonly RelayerSeed[]) => {
    deactivateConfig.run();
    const now = new Date().toISOString();
    for (const s of seeds) upsert.run(params(s, now));
  });

  return {
    seed: (seeds) => seedAll(seeds),
    create: (seed) => insert.run(params(seed, new Date().toISOString())).changes === 1,
    remove: (id) => {
      const now = new Date().toISOString();
      return markDeleted.run(now, now, id).changes === 1;
    },
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
      if (changes.name !== undefined) setters.name.run(changes.name, now, id);
      if (changes.paused !== undefined) setters.paused.run(changes.paused ? 1 : 0, now, id);
      if (changes.notification_id !== undefined) setters.notification_id.run(changes.notification_id, now, id);
      if (changes.policies !== undefined) setters.policies.run(text(changes.policies), now, id);
      if (changes.custom_rpc_urls !== undefined) setters.custom_rpc_urls.run(text(changes.custom_rpc_urls), now, id);
    },
    setSystemDisabled: (id, reason) => {
      setDisabled.run(reason ? 1 : 0, text(reason), new Date().toISOString(), id);
    },
    usingSigner: (signerId) => bySigner.all(signerId, signerId),
    notificationExists: (id) => notification.get(id) === 1,
    advance: (id, expectedNonce, nextNonce, lastCreatedMs) =>
      advance.run(nextNonce, lastCreatedMs, id, expectedNonce).changes === 1,
    // The ledger is the transactions repo's (exact sums in BigInt): added in the same SQLite transaction.
    advanceFrom(id, from, to, reserve) {
      const row = advanceFrom.get(to.next_nonce, to.last_created_ms, id, from.next_nonce, from.last_created_ms);
      if (!row) return undefined;
      const relayer = toRelayer(row);
      if (reserve === undefined) return relayer;
      moveFunds(id, reserve, 0n);
      return { ...relayer, funds: funds(id) };
    },
  };
}
