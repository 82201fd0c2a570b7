import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '../src/errors.ts';
import { PROJECT_ROOT } from '../src/config/config.ts';

const doc = readFileSync(path.join(PROJECT_ROOT, 'docs/errors.md'), 'utf8');

test('every error code is documented in docs/errors.md with its status and text', () => {
  for (const [code, { status, message }] of Object.entries(ERROR_CATALOGUE)) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    assert.ok(row, `${code} is missing from docs/errors.md`);
    assert.ok(row.includes(`| ${status} |`), `${code}: status ${status} not in its row`);
    assert.ok(row.includes(message), `${code}: text '${message}' not in its row`);
  }
});

test('error codes are unique, SCREAMING_SNAKE and documented once', () => {
  for (const code of Object.keys(ERROR_CATALOGUE)) {
    assert.match(code, /^[A-Z][A-Z0-9_]*$/);
    assert.equal(doc.split(`| \`${code}\` |`).length - 1, 1, `${code} documented more than once`);
  }
});
