// The repository contract run against PostgreSQL (a database of this run's own, a fresh schema per test).
// Skipped when no server answers (see test/support/postgres.ts); always run in CI.
import { randomUUID } from 'node:crypto';
import { createPostgresStore } from '../../src/store/postgres/store.ts';
import { migrate } from '../../src/store/postgres/connect.ts';
import { runStoreContract } from './contract/index.ts';
import { createTestDatabase, createTestSchema, postgresReachable } from '../support/postgres.ts';

const available = await postgresReachable();
const databaseUrl = available ? (await createTestDatabase('relaybox_contract')).url : '';

runStoreContract(
  'PostgreSQL',
  async (t) => {
    const schema = await createTestSchema(databaseUrl);
    const store = createPostgresStore({ url: schema.url, outbox: { owner: `test-${randomUUID()}`, leaseMs: 30_000 }, max: 5 });
    await migrate(store.db);
    t.after(async () => {
      await store.close();
      await schema.drop();
    });
    return store;
  },
  available ? undefined : 'no PostgreSQL server answers (set DATABASE_URL or start one on 127.0.0.1:5432)',
);
