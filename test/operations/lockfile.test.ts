// `npm ci` (what .ci/run and a newcomer run) refuses a lock that names an optional package without an entry for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

const { missing } = createRequire(import.meta.url)('../../scripts/complete-lock.cjs') as {
  missing(lock: unknown): Array<{ name: string }>;
};

test('every optional package the lock names has an entry, so npm ci accepts the lock', () => {
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8'));
  assert.deepEqual(
    missing(lock).map((m) => m.name),
    [],
    'run `node scripts/complete-lock.cjs` after npm install',
  );
  assert.ok(lock.packages['node_modules/litesvm'], 'the check reads the real lock');
});

// npm 11 warns about install scripts not covered by `allowScripts`, and a later npm blocks them: every package of the
// lock that has one carries a decision, and only the native addons we compile are allowed to run theirs.
test('every install script in the lock is decided in allowScripts; only the native addons run theirs (SQLite, isolates, PKCS#11)', () => {
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8'));
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
  const withScripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
  assert.ok(withScripts.includes('isolated-vm'), 'the check reads the real lock');
  for (const name of withScripts)
    assert.equal(
      typeof pkg.allowScripts[name],
      'boolean',
      `${name} has an install script with no allowScripts decision`,
    );
  const allowed = Object.keys(pkg.allowScripts)
    .filter((name) => pkg.allowScripts[name] === true)
    .sort();
  assert.deepEqual(allowed, ['better-sqlite3', 'isolated-vm', 'pkcs11js']);
});
