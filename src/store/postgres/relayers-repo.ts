// PostgreSQL repository for relayers: seeding from config, creation and deletion through the API, listing,
// and the nonce under the row's lock. Same policy as src/store/sqlite/relayers-repo.ts (see RelayersRepo).
import { sql, type Kysely } from 'kysely';
import type { LanesStore, RelayerRow, RelayerSeed, RelayersRepo } from '../../domain/relayers/ports.ts';
import type { Database } from './schema.ts';

/** Runs `fn` in a transaction: a new one, or the caller's when the repository is bound to one. */
export type InTx = <T>(fn: (q: Kysely<Database>) => Promise<T>) => Promise<T>;

const COLUMNS = [
  'id',
  'name',
  'network',
  'network_type',
  'signer_id',
  'address',
  'paused',
  'notification_id',
  'policies',
  'custom_rpc_urls',
  'system_disabled',
  'disabled_reason',
  'source',
  'next_nonce',
  'last_created_ms',
] as const;

const json = (text: string | null) => (text === null ? null : JSON.parse(text));
const text = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

type Row = Pick<Database['relayers'], 'policies' | 'custom_rpc_urls' | 'disabled_reason'> &
  Omit<RelayerRow, 'policies' | 'custom_rpc_urls' | 'disabled_reason'>;
const toRelayer = (row: Row): RelayerRow => ({
  ...row,
  policies: json(row.policies),
  custom_rpc_urls: json(row.custom_rpc_urls),
  disabled_reason: json(row.disabled_reason),
});

function values(s: RelayerSeed, source: 'config' | 'api', now: string) {
  const { initial_nonce, ...rest } = s;
  return {
    ...rest,
    policies: text(s.policies),
    custom_rpc_urls: text(s.custom_rpc_urls),
    source,
    active: true,
    next_nonce: initial_nonce,
    created_at: now,
    updated_at: now,
  };
}

/** Adds `amount` to the relayer's reserve; `guardNet`: the net reserve it was admitted against (write-buffer.ts). */
export type ReserveFunds = (relayerId: string, amount: bigint, guardNet: bigint) => Promise<void>;

export function createRelayersRepo(
  q: Kysely<Database>,
  inTx: InTx,
  reserve: ReserveFunds,
): Omit<RelayersRepo, keyof LanesStore> {
  const visible = () =>
    q.selectFrom('relayers').select(COLUMNS).where('active', '=', true).where('deleted_at', 'is', null);
  const one = async (id: string, lock: boolean) => {
    const query = visible().where('id', '=', id);
    const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
    return row && toRelayer(row as Row);
  };
  // A config-owned field is rewritten only when the file entry changed (seed_hash differs): otherwise the store wins.
  const fromFileIfEdited = (column: string) =>
    sql`CASE WHEN relayers.seed_hash IS DISTINCT FROM excluded.seed_hash THEN excluded.${sql.ref(column)} ELSE relayers.${sql.ref(column)} END`;
  return {
    seed: (seeds) =>
      inTx(async (t) => {
        await t.updateTable('relayers').set({ active: false }).where('source', '=', 'config').execute();
        if (seeds.length === 0) return;
        const now = new Date().toISOString();
        await t
          .insertInto('relayers')
          .values(seeds.map((s) => values(s, 'config', now)))
          .onConflict((oc) =>
            oc
              .column('id')
              .doUpdateSet({
                name: fromFileIfEdited('name'),
                network: fromFileIfEdited('network'),
                network_type: fromFileIfEdited('network_type'),
                signer_id: fromFileIfEdited('signer_id'),
                address: fromFileIfEdited('address'),
                policies: fromFileIfEdited('policies'),
                custom_rpc_urls: fromFileIfEdited('custom_rpc_urls'),
                deleted_at: sql`CASE WHEN relayers.seed_hash IS DISTINCT FROM excluded.seed_hash THEN NULL ELSE relayers.deleted_at END`,
                seed_hash: sql`excluded.seed_hash`,
                active: true,
                next_nonce: sql<number>`GREATEST(relayers.next_nonce, excluded.next_nonce)`,
                updated_at: sql`excluded.updated_at`,
              } as never)
              .where('relayers.source', '=', 'config'),
          )
          .execute();
      }),
    async create(seed) {
      const row = values(seed, 'api', new Date().toISOString());
      // A deleted relayer's id may be taken again (DELETE refuses while it has transactions): its row is replaced.
      const r = await q
        .insertInto('relayers')
        .values(row)
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet({
              ...Object.fromEntries(
                [
                  'name',
                  'network',
                  'network_type',
                  'signer_id',
                  'address',
                  'paused',
                  'notification_id',
                  'policies',
                  'custom_rpc_urls',
                  'seed_hash',
                  'updated_at',
                ].map((c) => [c, sql`excluded.${sql.ref(c)}`]),
              ),
              source: 'api',
              active: true,
              deleted_at: null,
              system_disabled: false,
              disabled_reason: null,
              next_nonce: sql<number>`GREATEST(relayers.next_nonce, excluded.next_nonce)`,
            } as never)
            .where('relayers.deleted_at', 'is not', null),
        )
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async remove(id) {
      const now = new Date().toISOString();
      const r = await q
        .updateTable('relayers')
        .set({ deleted_at: now, updated_at: now })
        .where('id', '=', id)
        .where('active', '=', true)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    get: (id) => one(id, false),
    getForUpdate: (id) => one(id, true),
    list: async (limit, offset) =>
      (await visible().orderBy('id').limit(limit).offset(offset).execute()).map((r) => toRelayer(r as Row)),
    async count() {
      const row = await q
        .selectFrom('relayers')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('active', '=', true)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async update(id, changes) {
      const set: Record<string, unknown> = {};
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.paused !== undefined) set.paused = changes.paused;
      if (changes.notification_id !== undefined) set.notification_id = changes.notification_id;
      if (changes.policies !== undefined) set.policies = text(changes.policies);
      if (changes.custom_rpc_urls !== undefined) set.custom_rpc_urls = text(changes.custom_rpc_urls);
      if (Object.keys(set).length === 0) return;
      await q
        .updateTable('relayers')
        .set({ ...set, updated_at: new Date().toISOString() })
        .where('id', '=', id)
        .execute();
    },
    async setSystemDisabled(id, reason) {
      await q
        .updateTable('relayers')
        .set({ system_disabled: reason !== null, disabled_reason: text(reason), updated_at: new Date().toISOString() })
        .where('id', '=', id)
        .execute();
    },
    async usingSigner(signerId) {
      // A key pool's other keys count too (relayer_lanes, issue 44).
      const inPool = q.selectFrom('relayer_lanes').select('relayer_id').where('signer_id', '=', signerId);
      const rows = await visible()
        .where((eb) => eb.or([eb('signer_id', '=', signerId), eb('id', 'in', inPool)]))
        .orderBy('id')
        .limit(10)
        .execute();
      return rows.map((r) => r.id);
    },
    async notificationExists(id) {
      return (await q.selectFrom('notifications').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
    },
    async advance(id, expectedNonce, nextNonce, lastCreatedMs) {
      const r = await q
        .updateTable('relayers')
        .set({ next_nonce: nextNonce, last_created_ms: lastCreatedMs })
        .where('id', '=', id)
        .where('next_nonce', '=', expectedNonce)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    },
    async advanceFrom(id, from, to, amount) {
      const update = q
        .updateTable('relayers')
        .set({ next_nonce: to.next_nonce, last_created_ms: to.last_created_ms })
        .where('id', '=', id)
        .where('active', '=', true)
        .where('deleted_at', 'is', null)
        .where('next_nonce', '=', from.next_nonce)
        .where('last_created_ms', '=', from.last_created_ms)
        .returning(COLUMNS);
      if (amount === undefined) {
        const row = await update.executeTakeFirst();
        return row && toRelayer(row as Row);
      }
      // The ledger is read by the same statement (one round trip), not locked: the reserve is written by `reserve`,
      // which in a transaction is the commit's last statement (write-buffer.ts), guarded by what was read here.
      const found = (
        await sql<Row & { funds_reserved: string; funds_released: string }>`
          WITH moved AS (${update})
          SELECT moved.*, COALESCE(f.reserved, 0)::text AS funds_reserved, COALESCE(f.released, 0)::text AS funds_released
          FROM moved LEFT JOIN relayer_funds f ON f.relayer_id = moved.id`.execute(q)
      ).rows[0];
      if (!found) return undefined;
      const { funds_reserved, funds_released, ...row } = found;
      const read = { reserved: BigInt(funds_reserved), released: BigInt(funds_released) };
      await reserve(id, amount, read.reserved - read.released);
      return { ...toRelayer(row as Row), funds: { reserved: read.reserved + amount, released: read.released } };
    },
  };
}
