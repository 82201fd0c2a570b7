// The environment table (src/config/env.ts) against docs/operating.md's table of environment variables and the other
// docs, both ways, as test/errors-catalogue.test.ts holds src/errors.ts to docs/errors.md: a variable added, renamed or
// given a new default in one place and not the other fails here. The README lists a few of them, and links there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { ENV, ENV_TABLE, readEnv, type EnvVariable } from '../../src/config/env.ts';

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const variables = Object.values(ENV) as EnvVariable<unknown>[];

/** "a, b (c, d), e" → ["a", "b (c, d)", "e"]: the table lists a row's defaults in its variables' order. */
function splitTopLevel(cell: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i]!;
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0 && cell[i + 1] === ' ') {
      parts.push(current.trim());
      current = '';
      i++;
      continue;
    }
    current += c;
  }
  return [...parts, current.trim()];
}

const [TABLE_PAGE, TABLE_ANCHOR] = ENV_TABLE.split('#') as [string, string];

/** A page's section under the heading whose anchor is `anchor` ("## Environment variables": environment-variables). */
function section(page: string, anchor: string): string {
  const text = read(page);
  const heading = [...text.matchAll(/^## (.+)$/gm)].find(
    (m) =>
      m[1]!
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-') === anchor,
  );
  assert.ok(heading, `${page} has no section #${anchor}`);
  const end = text.indexOf('\n## ', heading.index + 1);
  return text.slice(heading.index, end === -1 ? undefined : end);
}

/** The table of environment variables: each variable of the first column with its default from the second. */
function tableRows(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of section(TABLE_PAGE, TABLE_ANCHOR)
    .split('\n')
    .filter((l) => /^\| `[A-Z]/.test(l))) {
    const [names, defaults] = line.split(' | ').map((c) => c.replace(/^\| /, ''));
    const list = names!.split(', ').map((n) => n.replace(/`/g, ''));
    const values = splitTopLevel(defaults!);
    assert.equal(
      values.length,
      list.length,
      `${TABLE_PAGE} row ${names}: ${list.length} variables but ${values.length} defaults`,
    );
    list.forEach((name, i) => rows.set(name, values[i]!));
  }
  return rows;
}

test('the table names each variable once, by the key it is filed under', () => {
  for (const [key, variable] of Object.entries(ENV)) assert.equal(variable.name, key);
  assert.ok(variables.length >= 50, `${variables.length} variables`);
});

test("every variable of docs/operating.md's table is in src/config/env.ts, with the table's default, and every one of env.ts's documented there is in it", () => {
  const rows = tableRows();
  assert.ok(rows.size >= 45, `${TABLE_PAGE} rows read: ${rows.size}`);
  for (const [name, byDefault] of rows) {
    const variable = (ENV as Record<string, EnvVariable<unknown>>)[name];
    assert.ok(variable, `${TABLE_PAGE}'s ${name} is not in src/config/env.ts`);
    assert.equal(variable.doc, ENV_TABLE, `${name} is documented in ${ENV_TABLE}`);
    assert.equal(variable.default, byDefault, `${name}: the table's default`);
  }
  for (const variable of variables.filter((v) => v.doc === ENV_TABLE))
    assert.ok(rows.has(variable.name), `${variable.name} is missing from ${ENV_TABLE}`);
});

test("the README's short list names variables of the table, and links to it", () => {
  const operating = section('README.md', 'operating');
  const listed = [...operating.matchAll(/^- (.+)$/gm)].flatMap((m) =>
    [...m[1]!.matchAll(/`([A-Z][A-Z0-9_]+)(?:=[^`]*)?`/g)].map((n) => n[1]!),
  );
  assert.ok(
    listed.length >= 8 && listed.includes('API_KEY') && listed.includes('DATABASE_URL'),
    `README lists ${listed.join(', ')}`,
  );
  const rows = tableRows();
  for (const name of listed) assert.ok(rows.has(name), `README lists ${name}, which is not in ${ENV_TABLE}`);
  assert.ok(operating.includes(`](${ENV_TABLE})`), `README's Operating section links to ${ENV_TABLE}`);
});

test('every variable documented elsewhere is in its page, with its default', () => {
  for (const variable of variables.filter((v) => v.doc !== ENV_TABLE)) {
    const page = read(variable.doc);
    assert.ok(page.includes(`\`${variable.name}\``), `${variable.name} is not in ${variable.doc}`);
    if (variable.default !== 'unset')
      assert.ok(page.includes(variable.default), `${variable.name}: ${variable.default} not in ${variable.doc}`);
  }
});

test('a default written as a value is the value the variable takes when unset', () => {
  for (const variable of variables) {
    const value = variable.parse(undefined);
    const written = /^`([^`]+)`$/.exec(variable.default)?.[1];
    if (value === undefined || written === undefined || Array.isArray(value)) continue;
    const expected = typeof value === 'boolean' ? (value ? ['true', '1'] : ['false', '0']) : [String(value)];
    assert.ok(expected.includes(written), `${variable.name}: documented ${written}, parsed ${String(value)}`);
  }
  assert.equal(ENV.LOG_MAX_SIZE.parse(undefined), 1024 ** 3, '1 GiB');
  assert.equal(ENV.PLUGIN_KV_MAX_BYTES.parse(undefined), 64 * 1024 ** 2, '64 MiB');
});

test('a bad value is refused in one sentence naming the variable; unset and empty mean the default', () => {
  assert.throws(() => readEnv({ PORT: 'x' }).PORT, { message: "PORT must be an integer >= 0, got 'x'" });
  assert.throws(() => readEnv({ WEBHOOK_MAX_ATTEMPTS: '0' }).WEBHOOK_MAX_ATTEMPTS, {
    message: "WEBHOOK_MAX_ATTEMPTS must be an integer >= 1, got '0'",
  });
  assert.throws(() => readEnv({ RPC_BLOCK_PRIVATE_IPS: 'yes' }).RPC_BLOCK_PRIVATE_IPS, {
    message: "RPC_BLOCK_PRIVATE_IPS must be 0, 1, true or false, got 'yes'",
  });
  assert.throws(() => readEnv({ LOG_LEVEL: 'LOUD' }).LOG_LEVEL, {
    message: "LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got 'LOUD'",
  });
  assert.equal(readEnv({ LOG_LEVEL: 'WARN' }).LOG_LEVEL, 'warn');
  assert.equal(readEnv({ WEBHOOK_CONCURRENCY: '' }).WEBHOOK_CONCURRENCY, 16);
  // Read when asked: a variable no setting reads is never refused.
  assert.doesNotThrow(() => readEnv({ PORT: 'x' }).HOST);
});
