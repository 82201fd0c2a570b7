// Reads every import in src/ and runtime/ and fails on a forbidden edge or a cycle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (name.endsWith('.ts')) out.push(full);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s([^'"]*?)from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Value imports only: `import type` is erased by Node and couples no code at run time. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].filter((m) => !/^type\s/.test(m[1] ?? '')).map((m) => (m[2] ?? m[3])!);
}

const rel = (f: string) => path.relative(PROJECT_ROOT, f).split(path.sep).join('/');
const files = [...sourceFiles(path.join(PROJECT_ROOT, 'src')), ...sourceFiles(path.join(PROJECT_ROOT, 'runtime'))];
const graph = new Map<string, { local: string[]; packages: string[] }>();
for (const file of files) {
  const local: string[] = [];
  const packages: string[] = [];
  for (const spec of importsOf(file)) {
    if (spec.startsWith('.')) local.push(rel(path.resolve(path.dirname(file), spec)));
    else packages.push(spec);
  }
  graph.set(rel(file), { local, packages });
}

test('the import graph was read', () => {
  assert.ok(graph.size > 10);
  assert.ok(graph.get('src/app.ts')!.local.includes('src/store/open.ts'));
});

test('runtime/ never imports src/', () => {
  for (const [file, { local }] of graph) {
    if (!file.startsWith('runtime/')) continue;
    for (const target of local) assert.ok(!target.startsWith('src/'), `${file} imports ${target}`);
  }
});

test('only src/plugin-host/client.ts reaches into runtime/, and only its protocol', () => {
  for (const [file, { local }] of graph) {
    if (!file.startsWith('src/')) continue;
    for (const target of local.filter((t) => t.startsWith('runtime/'))) {
      assert.equal(file, 'src/plugin-host/client.ts', `${file} imports ${target}`);
      assert.equal(target, 'runtime/protocol.ts', `${file} imports ${target}`);
    }
  }
});

test('the domain imports no framework, driver or outer layer', () => {
  const forbiddenPackages = /^(express|better-sqlite3|pg|kysely|ioredis|piscina|isolated-vm|ajv|pino)(\/|$)/;
  for (const [file, { local, packages }] of graph) {
    if (!file.startsWith('src/domain/')) continue;
    for (const p of packages) assert.ok(!forbiddenPackages.test(p), `${file} imports ${p}`);
    for (const t of local) assert.ok(!/^src\/(http|api|store)\//.test(t) && t !== 'src/app.ts', `${file} imports ${t}`);
  }
});

test('ports are types only: src/domain/**/ports.ts import no code', () => {
  const ports = [...graph.keys()].filter((f) => f.startsWith('src/domain/') && f.endsWith('/ports.ts'));
  assert.ok(ports.includes('src/domain/ports.ts') && ports.includes('src/domain/jobs/ports.ts'));
  for (const file of ports) {
    const { local, packages } = graph.get(file)!;
    assert.deepEqual([...local, ...packages], [], `${file} has value imports`);
  }
});

test('only the store opens SQLite, PostgreSQL and Redis, and only app.ts (through src/store/open.ts) picks the store adapter', () => {
  for (const [file, { local, packages }] of graph) {
    if (packages.includes('better-sqlite3')) assert.equal(file, 'src/store/db.ts', `${file} imports better-sqlite3`);
    for (const p of packages.filter((p) => /^(pg|kysely|ioredis)$/.test(p))) assert.ok(file.startsWith('src/store/'), `${file} imports ${p}`);
    if (file.startsWith('src/store/')) continue;
    for (const t of local.filter((t) => /^src\/store\/(sqlite|postgres)\/|^src\/store\/open\.ts$/.test(t))) assert.equal(file, 'src/app.ts', `${file} imports ${t}`);
  }
});

test('the API layer reaches the store only through the domain', () => {
  for (const [file, { local }] of graph) {
    if (!file.startsWith('src/api/')) continue;
    for (const t of local) assert.ok(!t.startsWith('src/store/'), `${file} imports ${t}`);
  }
});

test('the domain reaches chains only through its ports; chain adapters never import the HTTP, API or store layers', () => {
  for (const [file, { local, packages }] of graph) {
    if (file.startsWith('src/domain/')) for (const t of local) assert.ok(!t.startsWith('src/chains/'), `${file} imports ${t}`);
    if (file.startsWith('src/domain/chains/')) assert.deepEqual(packages, [], `${file} imports a package (the port is plain TypeScript)`);
    if (file.startsWith('src/chains/')) for (const t of local) assert.ok(!/^src\/(http|api|store)\//.test(t) && t !== 'src/app.ts', `${file} imports ${t}`);
  }
  assert.ok(graph.get('src/app.ts')!.local.includes('src/chains/index.ts'), 'the composition root builds the chains');
});

test('the store never imports the HTTP or API layers', () => {
  for (const [file, { local }] of graph) {
    if (!file.startsWith('src/store/')) continue;
    for (const t of local) assert.ok(!/^src\/(http|api)\//.test(t), `${file} imports ${t}`);
  }
});

test('there are no import cycles', () => {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: string, trail: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting') assert.fail(`cycle: ${[...trail.slice(trail.indexOf(node)), node].join(' -> ')}`);
    state.set(node, 'visiting');
    for (const next of graph.get(node)?.local ?? []) if (graph.has(next)) visit(next, [...trail, node]);
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node, []);
});
