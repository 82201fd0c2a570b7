// Secrets at rest (issue 23, part 7): with STORAGE_ENCRYPTION_KEY set, every stored secret is sealed at start (signer
// keys and credentials of any signer type, webhook signing keys), whenever it was stored; a rotation re-seals them all
// under the new key. The stored rows are read directly (SQLite file, PostgreSQL) to prove nothing is in clear.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { build, type TestServer } from '../helper.ts';
import { createSecretBox } from '../../src/domain/secret-box.ts';
import { DB_FILE_NAME } from '../../src/store/sqlite/db.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';

const KEY_A = 'storage-key-A-0123456789abcdef0123456789';
const KEY_B = 'storage-key-B-9876543210fedcba9876543210';
// Hardhat's account #3: publicly known, never holds real funds.
const SIGNER_KEY = '7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const WEBHOOK_KEY = 'whsec-stored-before-the-storage-key-0123456789';
const VAULT_CREDENTIALS = JSON.stringify({ role_id: 'role-1234', secret_id: 'vault-secret-id-0123456789abcdef' });
const CLEAR = [SIGNER_KEY, WEBHOOK_KEY, 'vault-secret-id-0123456789abcdef'];

interface Rows {
  signers: Array<{ id: string; type: string; secret: string | null; deleted: boolean }>;
  notifications: Array<{ id: string; signing_key: string | null }>;
}

/** A store the test can restart: the same SQLite file or PostgreSQL database each time, read directly. */
interface Backend {
  env: Record<string, string>;
  rows(): Promise<Rows>;
  /** Stands for a signer of another type created through the API (its credentials in `secret`), stored in plain. */
  insertRemoteSigner(id: string, secret: string): Promise<void>;
}

function sqliteBackend(t: TestContext): Backend {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-at-rest-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const open = () => new Database(path.join(dataDir, DB_FILE_NAME));
  const read = <T>(fn: (db: Database.Database) => T): T => {
    const db = open();
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    env: { DATA_DIR: dataDir },
    rows: async () =>
      read((db) => ({
        signers: (
          db.prepare('SELECT id, type, secret, deleted_at FROM signers ORDER BY id').all() as Array<{
            id: string;
            type: string;
            secret: string | null;
            deleted_at: string | null;
          }>
        ).map((r) => ({ id: r.id, type: r.type, secret: r.secret, deleted: r.deleted_at !== null })),
        notifications: db
          .prepare('SELECT id, signing_key FROM notifications ORDER BY id')
          .all() as Rows['notifications'],
      })),
    insertRemoteSigner: async (id, secret) =>
      read((db) => {
        const now = new Date().toISOString();
        db.prepare(
          "INSERT INTO signers (id, type, config, secret, source, created_at, updated_at) VALUES (?, 'vault', '{}', ?, 'api', ?, ?)",
        ).run(id, secret, now, now);
      }),
  };
}

async function postgresBackend(): Promise<Backend> {
  const { url } = await createTestDatabase('relaybox_at_rest');
  const query = async <T>(text: string, values: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as T[];
    } finally {
      await client.end();
    }
  };
  return {
    env: { DATABASE_URL: url },
    rows: async () => ({
      signers: (
        await query<{ id: string; type: string; secret: string | null; deleted_at: string | null }>(
          'SELECT id, type, secret, deleted_at FROM signers ORDER BY id',
        )
      ).map((r) => ({ id: r.id, type: r.type, secret: r.secret, deleted: r.deleted_at !== null })),
      notifications: await query<Rows['notifications'][number]>(
        'SELECT id, signing_key FROM notifications ORDER BY id',
      ),
    }),
    insertRemoteSigner: async (id, secret) => {
      const now = new Date().toISOString();
      await query(
        "INSERT INTO signers (id, type, config, secret, source, created_at, updated_at) VALUES ($1, 'vault', '{}', $2, 'api', $3, $3)",
        [id, secret, now],
      );
    },
  };
}

async function start(t: TestContext, backend: Backend, env: Record<string, string> = {}): Promise<TestServer> {
  return build(t, { env: { ...backend.env, ...env } });
}

/** Every stored secret of `rows`, with the owner it is sealed for. */
function secretsOf(rows: Rows): Array<{ stored: string; owner: string }> {
  return [
    ...rows.signers.filter((s) => s.secret !== null).map((s) => ({ stored: s.secret!, owner: `signer:${s.id}` })),
    ...rows.notifications.filter((n) => n.signing_key !== null).map((n) => ({ stored: n.signing_key!, owner: n.id })),
  ];
}

/** Nothing in clear, and every secret opens with `key` alone. */
function assertSealedUnder(rows: Rows, key: string): void {
  const box = createSecretBox(key);
  const all = secretsOf(rows);
  assert.ok(all.length >= 3, 'the signer, the remote signer and the notification hold secrets');
  const text = JSON.stringify(rows);
  for (const secret of CLEAR) assert.ok(!text.includes(secret), `a secret is stored in clear (${secret.slice(0, 8)}…)`);
  for (const { stored, owner } of all) {
    assert.match(stored, /^enc:v1:/, owner);
    assert.doesNotThrow(() => box.open(stored, owner), `${owner} opens with the expected key`);
  }
}

/** A signer and a notification created through the API, and a remote signer's credentials, all stored in plain. */
async function storePlainSecrets(t: TestContext, backend: Backend): Promise<void> {
  const s = await start(t, backend);
  assert.equal(
    (
      await s.request('POST', '/api/v1/signers', {
        body: { id: 'api-signer', type: 'plain', config: { key: SIGNER_KEY } },
      })
    ).status,
    201,
  );
  assert.equal(
    (
      await s.request('POST', '/api/v1/signers', {
        body: { id: 'gone-signer', type: 'plain', config: { key: SIGNER_KEY } },
      })
    ).status,
    201,
  );
  assert.equal((await s.request('DELETE', '/api/v1/signers/gone-signer')).status, 200);
  assert.equal(
    (
      await s.request('POST', '/api/v1/notifications', {
        body: { id: 'api-hook', url: 'https://example.com/hook', signing_key: WEBHOOK_KEY },
      })
    ).status,
    201,
  );
  await s.close();
  await backend.insertRemoteSigner('vault-signer', VAULT_CREDENTIALS);
  const rows = await backend.rows();
  assert.equal(
    rows.signers.find((r) => r.id === 'api-signer')!.secret,
    SIGNER_KEY,
    'stored in plain without a storage key',
  );
  assert.equal(rows.signers.find((r) => r.id === 'gone-signer')!.secret, null, "a deleted signer's key is dropped");
}

/** The signer still signs: its address resolves through a relayer created on it. */
async function assertSignerWorks(s: TestServer): Promise<void> {
  const relayerId = `r-${Math.random().toString(36).slice(2, 8)}`;
  const res = await s.request('POST', '/api/v1/relayers', {
    body: {
      id: relayerId,
      name: relayerId,
      network: 'devnet',
      network_type: 'evm',
      paused: true,
      signer_id: 'api-signer',
    },
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.address, '0x90F79bf6EB2c4f870365E785982E1f101E93b906');
  assert.equal((await s.request('DELETE', `/api/v1/relayers/${relayerId}`)).status, 200);
}

async function rotationStory(t: TestContext, backend: Backend, refusedWithOldKey: RegExp): Promise<void> {
  await storePlainSecrets(t, backend);

  // Break 7: the key set after the secrets were stored seals all of them, signer keys and credentials included.
  const withA = await start(t, backend, { STORAGE_ENCRYPTION_KEY: KEY_A });
  await withA.close();
  assertSealedUnder(await backend.rows(), KEY_A);

  // Rotation: new key B, previous A. Everything is re-sealed under B.
  const rotating = await start(t, backend, { STORAGE_ENCRYPTION_KEY: KEY_B, STORAGE_ENCRYPTION_KEY_PREVIOUS: KEY_A });
  assert.ok(
    rotating.logs.some(
      (l) =>
        l.msg ===
          'stored secrets sealed under STORAGE_ENCRYPTION_KEY (sealed: were plain; resealed: were under STORAGE_ENCRYPTION_KEY_PREVIOUS)' &&
        l.resealed === 3,
    ),
  );
  await rotating.close();
  const rotated = await backend.rows();
  assertSealedUnder(rotated, KEY_B);
  for (const { stored, owner } of secretsOf(rotated))
    assert.throws(
      () => createSecretBox(KEY_A).open(stored, owner),
      /differs/,
      `${owner} no longer opens with the old key`,
    );

  // Only B: works, and the rotated signer still signs.
  const onlyB = await start(t, backend, { STORAGE_ENCRYPTION_KEY: KEY_B });
  await assertSignerWorks(onlyB);
  for (const key of [KEY_A, KEY_B]) assert.ok(!onlyB.rawLogs().includes(key));
  await onlyB.close();

  // Only A: refused, clearly, and nothing changed.
  await assert.rejects(start(t, backend, { STORAGE_ENCRYPTION_KEY: KEY_A }), (err: Error) => {
    assert.match(err.message, refusedWithOldKey);
    assert.ok(!err.message.includes(KEY_A) && !err.message.includes(KEY_B), 'no key in the reason');
    return true;
  });
  assertSealedUnder(await backend.rows(), KEY_B);
}

test('SQLite: signer keys, remote-signer credentials and webhook keys stored before the key are sealed; rotation re-seals them all', async (t) => {
  await rotationStory(
    t,
    sqliteBackend(t),
    /STORAGE_ENCRYPTION_KEY does not open 3 stored secret\(s\) \(notification 'api-hook', signer 'api-signer', signer 'vault-signer'\): they were sealed with another key/,
  );
});

test('PostgreSQL: the same, and the verifier follows the rotation (the old key is refused by it)', {
  skip: !(await postgresReachable()) && 'no PostgreSQL',
}, async (t) => {
  await rotationStory(
    t,
    await postgresBackend(),
    /STORAGE_ENCRYPTION_KEY mismatch: this database is used with a different STORAGE_ENCRYPTION_KEY/,
  );
});

test('a secret that opens with neither key refuses the start and changes nothing', async (t) => {
  const backend = sqliteBackend(t);
  await storePlainSecrets(t, backend);
  await (await start(t, backend, { STORAGE_ENCRYPTION_KEY: KEY_A })).close();
  const before = await backend.rows();
  const third = 'storage-key-C-0123456789abcdef0123456789';
  await assert.rejects(
    start(t, backend, { STORAGE_ENCRYPTION_KEY: KEY_B, STORAGE_ENCRYPTION_KEY_PREVIOUS: third }),
    /does not open 3 stored secret/,
  );
  assert.deepEqual(await backend.rows(), before, 'one transaction: nothing was re-sealed');
});

test('STORAGE_ENCRYPTION_KEY_PREVIOUS alone, too short, or equal to the key is refused at config load', async () => {
  const { loadConfig } = await import('../../src/config/config.ts');
  const env = { API_KEY: 'test-api-key-0123456789abcdef0123456789' };
  assert.throws(
    () => loadConfig({ ...env, STORAGE_ENCRYPTION_KEY_PREVIOUS: KEY_A }),
    /STORAGE_ENCRYPTION_KEY_PREVIOUS is set without STORAGE_ENCRYPTION_KEY/,
  );
  assert.throws(
    () => loadConfig({ ...env, STORAGE_ENCRYPTION_KEY: KEY_B, STORAGE_ENCRYPTION_KEY_PREVIOUS: 'short' }),
    /at least 32 characters/,
  );
  assert.throws(
    () => loadConfig({ ...env, STORAGE_ENCRYPTION_KEY: KEY_B, STORAGE_ENCRYPTION_KEY_PREVIOUS: KEY_B }),
    /is the same as STORAGE_ENCRYPTION_KEY/,
  );
});
