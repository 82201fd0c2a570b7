// Reads every import in src/ and runtime/ and fails on a forbidden edge or a cycle. The rules are the layout's:
// route → validate → domain → ports → adapters in src/, and runtime/'s three rooms (process, worker, isolate).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|cjs)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s([^'"]*?)from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

interface Edges {
  /** Local files imported for their code. */
  local: string[];
  /** Local files imported for types only (`import type`): erased at run time, but still a dependency of the reader. */
  typeOnly: string[];
  /** Packages imported for their code. */
  packages: string[];
  /** Of those, the ones (files or packages) this file reaches only through import(): loaded when that code runs. */
  lazy: Set<string>;
}

const rel = (f: string) => path.relative(PROJECT_ROOT, f).split(path.sep).join('/');

function edgesOf(file: string): Edges {
  const edges: Edges = { local: [], typeOnly: [], packages: [], lazy: new Set() };
  const loaded = new Set<string>();
  for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const spec = (m[2] ?? m[3] ?? m[4])!;
    const isType = /^type\s/.test(m[1] ?? '');
    const target = spec.startsWith('.') ? rel(path.resolve(path.dirname(file), spec)) : spec;
    if (!spec.startsWith('.')) {
      if (!isType) edges.packages.push(spec);
    } else (isType ? edges.typeOnly : edges.local).push(target);
    if (m[3] !== undefined) edges.lazy.add(target);
    else if (!isType) loaded.add(target);
  }
  for (const target of loaded) edges.lazy.delete(target);
  return edges;
}

const graph = new Map<string, Edges>();
for (const file of [...sourceFiles('src'), ...sourceFiles('runtime'), ...sourceFiles('console')])
  graph.set(rel(file), edgesOf(file));
const all = (e: Edges) => [...e.local, ...e.typeOnly];
const under = (prefix: string) => [...graph].filter(([file]) => file.startsWith(prefix));
// A bare name that is also one of our dependencies (`buffer`) is that npm package: the bundler resolves it so.
const DEPENDENCIES = new Set(
  Object.keys(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).dependencies),
);
const NODE_BUILTIN = new Set(builtinModules.filter((name) => !DEPENDENCIES.has(name)));
const isNodeBuiltin = (spec: string) => spec.startsWith('node:') || NODE_BUILTIN.has(spec.split('/')[0]!);

test('the import graph was read', () => {
  assert.ok(graph.size > 100);
  assert.ok(graph.get('src/app.ts')!.local.includes('src/store/open.ts'));
  assert.ok(graph.get('src/domain/types.ts'), 'the shared domain types are read');
});

test('src/ keeps only the composition root and the shared kernel at its top; runtime/ only its protocol', () => {
  const top = (dir: string) =>
    readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
  assert.deepEqual(top('src'), ['app.ts', 'errors.ts', 'main.ts']);
  assert.deepEqual(top('runtime'), ['protocol.ts']);
  const rooms = readdirSync(path.join(PROJECT_ROOT, 'runtime'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  assert.deepEqual(rooms, ['common', 'isolate', 'process', 'worker']);
});

test('runtime/ never imports src/', () => {
  for (const [file, edges] of under('runtime/'))
    for (const t of all(edges)) assert.ok(!t.startsWith('src/'), `${file} imports ${t}`);
});

test('runtime/isolate/ imports no Node built-in and nothing of the process or worker rooms (its code runs inside the sandbox)', () => {
  const isolate = under('runtime/isolate/');
  assert.ok(isolate.length >= 10, 'the prelude and the sandbox SDK are read');
  for (const [file, edges] of isolate) {
    for (const p of edges.packages) assert.ok(!isNodeBuiltin(p), `${file} imports the Node built-in ${p}`);
    for (const t of all(edges)) assert.ok(t.startsWith('runtime/isolate/'), `${file} imports ${t}`);
  }
});

test('the worker room never imports the process room, and the process room never imports the worker or isolate rooms', () => {
  for (const [file, edges] of under('runtime/worker/'))
    for (const t of all(edges)) assert.ok(!t.startsWith('runtime/process/'), `${file} imports ${t}`);
  for (const [file, edges] of under('runtime/process/')) {
    for (const t of all(edges)) assert.ok(!/^runtime\/(worker|isolate)\//.test(t), `${file} imports ${t}`);
  }
  assert.ok(
    graph.get('runtime/worker/sandbox.ts')!.local.includes('runtime/isolate/prelude.ts'),
    'the worker loads the prelude into each context',
  );
});

test('runtime/common/ imports only Node built-ins: the rooms and the HTTP process share it, it depends on none of them', () => {
  const common = under('runtime/common/');
  assert.ok(common.length >= 3, 'the shared helpers are read');
  for (const [file, edges] of common) {
    for (const p of edges.packages) assert.ok(isNodeBuiltin(p), `${file} imports ${p}`);
    for (const t of all(edges))
      assert.ok(t.startsWith('runtime/common/') || t === 'runtime/protocol.ts', `${file} imports ${t}`);
  }
});

// The plugin settings' schema is one declaration (runtime/common/plugin-settings.ts, plain data) that the API's and the
// config file's schemas spread, beside the runtime: those two files, and that file only, are the exception.
const SETTINGS_SCHEMA = 'runtime/common/plugin-settings.ts';
const SETTINGS_SCHEMA_READERS = ['src/api/plugins/schemas.ts', 'src/config/schema.ts'];

test('only src/plugin-host/ reaches into runtime/, and only its protocol and its shared helpers (runtime/common/)', () => {
  let seen = 0;
  for (const [file, edges] of under('src/')) {
    for (const t of all(edges).filter((t) => t.startsWith('runtime/'))) {
      if (SETTINGS_SCHEMA_READERS.includes(file) && t === SETTINGS_SCHEMA) continue;
      assert.ok(file.startsWith('src/plugin-host/'), `${file} imports ${t}`);
      assert.ok(t === 'runtime/protocol.ts' || t.startsWith('runtime/common/'), `${file} imports ${t}`);
      seen++;
    }
  }
  assert.ok(seen > 0, 'the plugin host speaks the protocol');
});

test("the API's and the config file's schemas take the plugin settings from runtime/common/, which is data only", () => {
  for (const file of SETTINGS_SCHEMA_READERS)
    assert.ok(graph.get(file)!.local.includes(SETTINGS_SCHEMA), `${file} reads the one declaration`);
  assert.ok(graph.get('runtime/process/settings.ts')!.local.includes(SETTINGS_SCHEMA), 'the runtime compiles it too');
  const { local, typeOnly, packages } = graph.get(SETTINGS_SCHEMA)!;
  assert.deepEqual([...local, ...typeOnly, ...packages], [], `${SETTINGS_SCHEMA} imports nothing`);
  assert.ok(
    !/\bfunction\b|=>/.test(readFileSync(path.join(PROJECT_ROOT, SETTINGS_SCHEMA), 'utf8')),
    `${SETTINGS_SCHEMA} holds no code`,
  );
});

test('the domain imports no framework, driver, cloud SDK or outer layer', () => {
  const forbiddenPackages =
    /^(express|better-sqlite3|pg|kysely|ioredis|piscina|isolated-vm|ajv|pino|prom-client|rate-limiter-flexible|esbuild|undici|@aws-sdk|@google-cloud|@azure|pkcs11js|graphene-pk11)(\/|$)/;
  const outer = /^src\/(http|api|store|chains|signers|plugin-host|observability|openapi|net)\/|^src\/(app|main)\.ts$/;
  for (const [file, edges] of under('src/domain/')) {
    for (const p of edges.packages) assert.ok(!forbiddenPackages.test(p), `${file} imports ${p}`);
    for (const t of all(edges)) assert.ok(!outer.test(t), `${file} imports ${t}`);
  }
});

test('ports are types only: src/domain/**/ports.ts import no code', () => {
  const ports = under('src/domain/').filter(([f]) => f.endsWith('/ports.ts'));
  assert.ok(
    ports.some(([f]) => f === 'src/domain/ports.ts') && ports.some(([f]) => f === 'src/domain/signers/ports.ts'),
  );
  for (const [file, { local, packages }] of ports)
    assert.deepEqual([...local, ...packages], [], `${file} has value imports`);
});

test('only the store opens SQLite, PostgreSQL and Redis, and only app.ts (through src/store/open.ts) picks the store adapter', () => {
  for (const [file, edges] of graph) {
    if (edges.packages.includes('better-sqlite3'))
      assert.equal(file, 'src/store/sqlite/db.ts', `${file} imports better-sqlite3`);
    for (const p of edges.packages.filter((p) => /^(pg|kysely|ioredis)$/.test(p)))
      assert.ok(file.startsWith('src/store/'), `${file} imports ${p}`);
    if (file.startsWith('src/store/')) continue;
    for (const t of edges.local.filter((t) => /^src\/store\/(sqlite|postgres)\/|^src\/store\/open\.ts$/.test(t)))
      assert.equal(file, 'src/app.ts', `${file} imports ${t}`);
  }
});

test('the API layer reaches the store, the chains, the signers and the plugin host only through the domain', () => {
  for (const [file, edges] of under('src/api/')) {
    for (const t of edges.local)
      assert.ok(!/^src\/(store|chains|signers|plugin-host)\//.test(t), `${file} imports ${t}`);
  }
});

test('adapters (chains, signers, store, plugin host) never import the HTTP or API layers, the composition root, or each other', () => {
  const adapters = ['chains', 'signers', 'store', 'plugin-host'];
  for (const room of adapters) {
    for (const [file, edges] of under(`src/${room}/`)) {
      for (const t of all(edges)) {
        assert.ok(!/^src\/(http|api|openapi)\/|^src\/(app|main)\.ts$/.test(t), `${file} imports ${t}`);
        const other = adapters.find((a) => a !== room && t.startsWith(`src/${a}/`));
        if (other) assert.fail(`${file} imports ${t}`);
      }
    }
  }
  assert.ok(graph.get('src/app.ts')!.local.includes('src/chains/index.ts'), 'the composition root builds the chains');
});

test("the console's browser code (console/) imports only itself and preact, and nothing imports it", () => {
  const browser = under('console/');
  assert.ok(
    browser.some(([f]) => f === 'console/app.ts'),
    'the console is read',
  );
  for (const [file, edges] of browser) {
    for (const p of edges.packages) assert.ok(/^preact(\/hooks)?$/.test(p), `${file} imports ${p}`);
    for (const t of all(edges)) assert.ok(t.startsWith('console/'), `${file} imports ${t}`);
  }
  for (const [file, edges] of [...under('src/'), ...under('runtime/')])
    for (const t of all(edges)) assert.ok(!t.startsWith('console/'), `${file} imports ${t}`);
});

test("the console's server part (src/console/) serves files only: no domain, store, chain, signer or plugin host", () => {
  const server = under('src/console/');
  assert.ok(server.length >= 2);
  for (const [file, edges] of server) {
    for (const t of all(edges))
      assert.ok(!/^src\/(domain|store|chains|signers|plugin-host|api)\//.test(t), `${file} imports ${t}`);
  }
  assert.ok(graph.get('src/app.ts')!.local.includes('src/console/routes.ts'), 'the composition root mounts it');
});

test('there are no import cycles, counting type imports', () => {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: string, trail: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting')
      assert.fail(`cycle: ${[...trail.slice(trail.indexOf(node)), node].join(' -> ')}`);
    state.set(node, 'visiting');
    for (const next of all(graph.get(node)!)) if (graph.has(next)) visit(next, [...trail, node]);
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node, []);
});

/** Each file reached from `entry` by imports loaded with it (code, not types, not import()) that imports a package `matching`, with the chain. */
function loadedWith(entry: string, matching: RegExp): string[] {
  const from = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  const found: string[] = [];
  const chain = (f: string): string => [f, ...(from.get(f) ? [chain(from.get(f)!)] : [])].join(' <- ');
  while (queue.length > 0) {
    const file = queue.shift()!;
    const edges = graph.get(file);
    if (!edges) continue;
    for (const p of edges.packages.filter((p) => matching.test(p) && !edges.lazy.has(p)))
      found.push(`${p}: ${chain(file)}`);
    for (const next of edges.local.filter((n) => !edges.lazy.has(n) && !from.has(n))) {
      from.set(next, file);
      queue.push(next);
    }
  }
  return found;
}

// The Solana and Stellar libraries (~23 MiB of the HTTP process together) load only when a network or a key of theirs
// is configured: reached through import() on the paths that need them, never with the service or a signer adapter.
const CHAIN_LIBRARIES = /^@(solana|stellar)\//;

test('the service starts without loading the Solana or Stellar libraries', () => {
  assert.deepEqual(loadedWith('src/main.ts', CHAIN_LIBRARIES), []);
});

test('no signer adapter loads the Solana or Stellar libraries with it: an EVM key never loads them', () => {
  const adapters = [...graph.keys()].filter((f) => /^src\/signers\/[^/]+\/signer\.ts$/.test(f));
  assert.ok(adapters.length >= 9, `signer adapters found: ${adapters.length}`);
  for (const adapter of adapters) assert.deepEqual(loadedWith(adapter, CHAIN_LIBRARIES), [], adapter);
});

test('the check sees the libraries where they are loaded', () => {
  assert.ok(
    loadedWith('src/signers/local/resolve.ts', CHAIN_LIBRARIES).some((line) =>
      line.startsWith('@solana/kit: src/signers/local/resolve.ts'),
    ),
  );
  assert.ok(
    loadedWith('src/domain/transactions/stellar/parts.ts', CHAIN_LIBRARIES).some((line) =>
      line.startsWith('@stellar/stellar-base'),
    ),
  );
});

// The signing gate (src/domain/signers/gate.ts) is the one door to a relayer's key for a transaction: the Solana and
// Stellar chain ports sign only with an approval, a branded type only the gate makes (it checks the relayer's
// policies, its balance and a simulation). These rules keep every signature of the domain and API layers behind it.
const GATE = 'src/domain/signers/gate.ts';
const sourceOf = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const APPROVAL_TYPES = /\b(SigningApproval|StellarSigningApproval)\b/;
/** The chain ports' signing methods, each of which requires an approval. */
const SIGNING_METHOD = /\.(signTransaction|buildAndSign|signComposed|resign|signXdr|feeBump|signEnvelope)\(/;

test('the approval types are branded in the chain ports: no value has one without a cast', () => {
  for (const port of ['src/domain/chains/solana/ports.ts', 'src/domain/chains/stellar/ports.ts']) {
    const text = sourceOf(port);
    assert.match(text, /declare const approvedByGate: unique symbol;/, `${port} brands its approval type`);
    assert.match(text, /readonly \[approvedByGate\]: true/, `${port}: the approval carries the brand`);
  }
});

test('only the signing gate makes an approval; nothing casts its way into a chain signing method', () => {
  const files = [...graph.keys()].filter((f) => f.startsWith('src/'));
  const makers = files.filter((f) =>
    new RegExp(`as\\s+(unknown\\s+as\\s+)?${APPROVAL_TYPES.source}`).test(sourceOf(f)),
  );
  assert.deepEqual(makers, [GATE]);
  for (const file of files) {
    for (const line of sourceOf(file).split('\n')) {
      if (SIGNING_METHOD.test(line))
        assert.ok(!/\bas (never|any|unknown)\b/.test(line), `${file} casts in a signing call: ${line.trim()}`);
    }
  }
  // The gate's approvals are functions the domain calls to get one: every module that passes one to a chain imports it.
  const importers = files.filter((f) => graph.get(f)!.local.includes(GATE)).sort();
  assert.deepEqual(importers, [
    'src/domain/chains/solana/fee-methods.ts',
    'src/domain/signers/signing.ts',
    'src/domain/transactions/solana/relay.ts',
    'src/domain/transactions/stellar/relay.ts',
  ]);
});

test("a signer's sign functions are called in the domain only by the signing paths the gate or the EVM send path guards", () => {
  // bounded.ts wraps each signer with a deadline (it forwards, it decides nothing); signing.ts signs EIP-191 messages
  // and EIP-712 data (a signature over a message spends nothing; its transactions go through the gate); the EVM send
  // path (transactions/evm/relay.ts) signs under its policy check and funds reservation (transactions/evm/funds.ts).
  const SIGNER_CALL = /\.sign\(|signEvmDigest\??\.?(\(|bind)/;
  const callers = [...under('src/domain/'), ...under('src/api/'), ...under('src/plugin-host/'), ...under('src/app.ts')]
    .map(([f]) => f)
    .filter(
      (f) =>
        !f.endsWith('/ports.ts') &&
        sourceOf(f)
          .split('\n')
          .some((l) => !/^\s*(\/\/|\*|\/\*\*)/.test(l) && SIGNER_CALL.test(l)),
    )
    .sort();
  assert.deepEqual(callers, [
    'src/domain/signers/bounded.ts',
    'src/domain/signers/signing.ts',
    'src/domain/transactions/evm/relay.ts',
  ]);
  // In the chain adapters, the key signs in one place per chain, after the approval.
  const adapterCalls = [...under('src/chains/')]
    .map(([f]) => f)
    .filter((f) => /\bsigner\.sign\(/.test(sourceOf(f)))
    .sort();
  assert.deepEqual(adapterCalls, [
    'src/chains/solana/wire.ts',
    'src/chains/stellar/build.ts',
    'src/chains/stellar/sign.ts',
  ]);
  assert.equal(
    sourceOf('src/chains/solana/adapter.ts').match(/signAsFeePayer\(/g)?.length,
    1,
    'the Solana adapter signs in finish() only',
  );
  assert.match(
    sourceOf('src/chains/solana/adapter.ts'),
    /await approval\(\{ \.\.\.facts, wire: toBase64\(bytes\) \}\);\n\s+const signed = await signAsFeePayer\(/,
  );
  assert.match(
    sourceOf('src/chains/stellar/build.ts'),
    /await approve\(tx, approval, simulated\);\n\s+const signature = await signer\.sign\(/,
  );
  assert.match(
    sourceOf('src/chains/stellar/sign.ts'),
    /await approve\(tx, approval\);\n\s+const signature = await signer\.sign\(/,
  );
  for (const f of under('src/')
    .map(([f]) => f)
    .filter((f) => f !== 'src/chains/solana/wire.ts' && f !== 'src/chains/solana/adapter.ts')) {
    assert.ok(!/signAsFeePayer\(/.test(sourceOf(f)), `${f} calls signAsFeePayer around the adapter's approval`);
  }
});

// The environment is read in one place: src/config/ parses our variables (src/config/env.ts, one table) and hands the
// rest of the service its settings; processEnv() there is the one door for what is named at run time.
const READS_ENV = /(?<![\w'"`.])process\.env\b/;

test('no process.env outside src/config/ (src/ and runtime/)', () => {
  const readers = [...under('src/'), ...under('runtime/')]
    .map(([f]) => f)
    .filter(
      (f) =>
        !f.startsWith('src/config/') &&
        sourceOf(f)
          .split('\n')
          .some((l) => !/^\s*(\/\/|\*|\/\*)/.test(l) && READS_ENV.test(l)),
    );
  assert.deepEqual(readers, []);
  assert.ok(READS_ENV.test(sourceOf('src/config/process-env.ts')), 'the check sees a read where there is one');
});

test('job kinds are registered with the scheduler in one module (src/domain/jobs/kinds.ts), composed by the one root', () => {
  const registering = under('src/')
    .map(([f]) => f)
    .filter((f) => /\.register\(/.test(sourceOf(f)));
  assert.deepEqual(registering, ['src/domain/jobs/kinds.ts']);
  assert.ok(graph.get('src/app.ts')!.local.includes('src/domain/jobs/kinds.ts'), 'the composition root registers them');
  // The API layer builds no domain part: the relaying services come composed (src/domain/relaying.ts) from the root.
  for (const [file, edges] of under('src/api/')) {
    for (const t of edges.local)
      assert.ok(!/^src\/domain\/(relaying|management|jobs\/kinds)\.ts$/.test(t), `${file} imports ${t}`);
  }
});

test("the two stores mirror each other: src/store/sqlite/ and src/store/postgres/ hold the same files, besides each engine's own helpers", () => {
  const files = (engine: string) => readdirSync(path.join(PROJECT_ROOT, 'src/store', engine)).sort();
  // What one engine needs and the other has no counterpart for: SQLite's write gate; PostgreSQL's NOTIFY channels,
  // listener, typed schema, start-up checks and batched writes.
  const own: Record<string, string[]> = {
    sqlite: ['gate.ts', 'sync-ops.ts'],
    postgres: ['channels.ts', 'instance-checks.ts', 'listener.ts', 'schema.ts', 'write-buffer.ts'],
  };
  for (const [engine, names] of Object.entries(own))
    for (const name of names)
      assert.ok(files(engine).includes(name), `src/store/${engine}/${name} is listed as its own but is gone`);
  const mirrored = (engine: string) => files(engine).filter((f) => !own[engine]!.includes(f));
  assert.deepEqual(mirrored('sqlite'), mirrored('postgres'));
  for (const name of ['db.ts', 'open.ts', 'store.ts', 'migrations', 'jobs-repo.ts', 'kv-repo.ts'])
    assert.ok(mirrored('sqlite').includes(name), name);
});
