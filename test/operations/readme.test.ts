// The README and the docs stay true to the code they describe: every setting documented, every link alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { ENV, ENV_TABLE } from '../../src/config/env.ts';

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
// Passed through to the runtime process, never settings of ours.
const NOT_SETTINGS = new Set(['PATH', 'TMPDIR', 'NODE_ENV']);

// Ours are in docs/operating.md's table of environment variables; the reference's, read with its meaning or logged as
// read differently, are in the table of docs/compatibility.md's deployments section.
test("every environment variable the service reads is in docs/operating.md's table or the compatibility page's", () => {
  const names = new Set<string>();
  const configFiles = readdirSync(path.join(PROJECT_ROOT, 'src/config'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/config/${f}`);
  // Ours are declared in src/config/env.ts's table (`v('NAME', …)`); the reference's are read by hand in reference-env.ts.
  for (const file of configFiles)
    for (const match of read(file).matchAll(/env\.([A-Z_]+)|env, '([A-Z_]+)'|\bv\('([A-Z_]+)'/g))
      names.add(match[1] ?? match[2] ?? match[3]!);
  for (const name of NOT_SETTINGS) names.delete(name);
  // The signers' endpoints are documented with their signer type (docs/signers.md; test/config/env-table.test.ts).
  for (const variable of Object.values(ENV)) if (variable.doc !== ENV_TABLE) names.delete(variable.name);
  assert.ok(names.has('SHUTDOWN_GRACE_MS') && names.size > 10, [...names].join(', '));
  const rows = (page: string, heading: string) =>
    (read(page).split(heading)[1] ?? '')
      .split('\n## ')[0]!
      .split('\n')
      .filter((l) => l.startsWith('| `'));
  const table = [
    ...rows('docs/operating.md', '## Environment variables'),
    ...rows('docs/compatibility.md', '## Deployments'),
  ];
  assert.ok(table.length > 30, 'both tables are read');
  for (const name of names)
    assert.ok(
      table.some((row) => row.includes(`\`${name}\``) || row.includes(`\`${name}=`)),
      `${name} is in neither docs/operating.md's table of environment variables nor docs/compatibility.md's deployments table`,
    );
});

test('every relative link in the README and docs/ points at a file that exists', () => {
  const pages = [
    'README.md',
    ...readdirSync(path.join(PROJECT_ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  for (const page of pages) {
    for (const [, target] of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      assert.ok(
        existsSync(path.join(PROJECT_ROOT, path.dirname(page), target!)),
        `${page} links to ${target}, which does not exist`,
      );
    }
  }
});

test("the README stays a user's page of at most 250 lines: the full tables are in docs/", () => {
  const lines = read('README.md').split('\n').length - 1;
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
});
