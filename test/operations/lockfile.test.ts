// `npm ci` (what .ci/run and a newcomer run) refuses a lock that names an optional package without an entry for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

const { missing } = createRequire(import.meta.url)('../../scripts/complete-lock.cjs') as { missing(lock: unknown): Array<{ name: string }> };

test('every optional package the lock names has an entry, so npm ci accepts the lock', () => {
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8'));
  assert.deepEqual(missing(lock).map((m) => m.name), [], 'run `node scripts/complete-lock.cjs` after npm install');
  assert.ok(lock.packages['node_modules/litesvm'], 'the check reads the real lock');
});
