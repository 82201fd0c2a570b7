// docs/compatibility.md stays true: every reference operation and client method has one row, and each status matches
// what Relaybox mounts and what the client tests call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { ROUTE_GROUPS } from '../../src/openapi/registry.ts';
import { expressToTemplates, joinPath } from '../../src/openapi/document.ts';
import reference from '../fixtures/reference/operations.json' with { type: 'json' };

const STATUSES = new Set(['works', 'differs', 'missing']);
const doc = readFileSync(path.join(PROJECT_ROOT, 'docs', 'compatibility.md'), 'utf8');

/** The rows of the table under `heading`: cells trimmed, header and rule skipped. */
function rows(heading: string): string[][] {
  const section = doc.split(/^## /m).find((s) => s.startsWith(heading));
  assert.ok(section, `docs/compatibility.md has a '## ${heading}' section`);
  return section
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2)
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

/** `GET /a/{}`: parameter names dropped (ours may differ: `{id}`), trailing slash dropped (Express matches both). */
const key = (method: string, p: string) =>
  `${method.toUpperCase()} ${p.replace(/\{[^}]*\}/g, '{}').replace(/\/$/, '')}`;

/** What Relaybox mounts, from the same route list app.ts mounts (test/operations/openapi.test.ts proves they agree). */
const mounted = new Set(
  ROUTE_GROUPS.flatMap((g) =>
    g.routes.flatMap((r) => expressToTemplates(joinPath(g.prefix, r.path)).map((t) => key(r.method, t))),
  ),
);

test('every reference operation has exactly one row, and each status is what Relaybox mounts', () => {
  const table = rows('Operations');
  const expected = reference.operations.map((o) => key(o.method, o.path)).sort();
  assert.deepEqual(table.map(([, m, p]) => key(m!, p!)).sort(), expected);
  assert.equal(new Set(expected).size, expected.length);
  for (const [name, method, p, status] of table) {
    assert.ok(STATUSES.has(status!), `${name}: status '${status}'`);
    const served = mounted.has(key(method!, p!));
    if (status === 'missing')
      assert.ok(!served, `${name} (${method} ${p}) is marked missing but is mounted: update docs/compatibility.md`);
    else assert.ok(served, `${name} (${method} ${p}) is marked ${status} but is not mounted`);
  }
});

/** Every method of the installed client, with its HTTP method and path, read from its generated code. */
function clientMethods(): Array<{ name: string; method: string; path: string }> {
  const dir = path.join(PROJECT_ROOT, 'node_modules', '@openzeppelin', 'relayer-sdk', 'dist', 'apis');
  const out: Array<{ name: string; method: string; path: string }> = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('-api.js'))) {
    const src = readFileSync(path.join(dir, file), 'utf8');
    const cls = src.match(/^class (\w+Api) extends/m)?.[1];
    assert.ok(cls, `${file} declares its class`);
    // The parameter creator: each method builds its path, then its request options with the HTTP method.
    const re = /^ {8}(\w+): \([^)]*\) => __awaiter[\s\S]*?localVarPath = `([^`]+)`[\s\S]*?method: '([A-Z]+)'/gm;
    for (const m of src.matchAll(re))
      out.push({ name: `${cls}.${m[1]}`, method: m[3]!, path: m[2]!.replace(/\$\{[^}]+\}/g, '') });
  }
  return out;
}

test('every client method has exactly one row with its route, and a working one is called in the test it names', () => {
  const table = rows('Client methods');
  const sdk = clientMethods();
  assert.ok(sdk.length >= 40, `read ${sdk.length} client methods`);
  assert.deepEqual(table.map(([name]) => name).sort(), sdk.map((m) => m.name).sort());
  const operations = new Map(rows('Operations').map(([, m, p, status]) => [key(m!, p!), status]));
  for (const [name, method, p, status, testedIn] of table) {
    const real = sdk.find((m) => m.name === name)!;
    assert.equal(
      key(method!, p!),
      key(real.method, real.path),
      `${name}: the client calls ${real.method} ${real.path}`,
    );
    assert.ok(STATUSES.has(status!), `${name}: status '${status}'`);
    if (status === 'missing')
      assert.equal(operations.get(key(method!, p!)), 'missing', `${name}: its operation is served`);
    if (status !== 'works') continue;
    assert.notEqual(operations.get(key(method!, p!)), 'missing', `${name} works but its operation is missing`);
    assert.ok(testedIn, `${name} works: name the test that calls it`);
    const source = readFileSync(path.join(PROJECT_ROOT, testedIn!), 'utf8');
    const method_ = name!.split('.')[1]!;
    assert.ok(source.includes(`.${method_}(`), `${testedIn} calls ${method_}`);
  }
});
