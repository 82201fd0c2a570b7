// No test or bench knob in the product (issue 43): src/ and runtime/ read no environment variable meant for a test or
// the bench, and carry no hop-timing header. A test injects faults through the app's overrides (`runtimeFaults`); the
// bench subscribes to diagnostics channels (bench/hop-probe.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|cjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => path.relative(PROJECT_ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** Every environment variable a source text reads by name: `env.NAME`, `env['NAME']`, or a helper's `(env, 'NAME'`. */
function envNames(text: string): string[] {
  return [
    ...text.matchAll(
      /\benv(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]|\s*,\s*['"]([A-Z][A-Z0-9_]*)['"])/g,
    ),
  ].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** A name meant for a test or the bench: one of its `_`-separated words says so (DEFAULT_… is no FAULT). */
const isKnob = (name: string) => name.split('_').some((word) => /^(FAULTS?|BENCH|TESTS?|TESTING)$/.test(word));

/** What a knob looks like in code besides a variable: a request header or a response header only the bench asked for. */
const KNOB_TEXT = /x-relaybox-hop-timing|server-timing|NODE_ENV\s*===?\s*['"]test['"]/i;

function knobsIn(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
    for (const name of envNames(text).filter(isKnob)) found.push(`${file} reads ${name}`);
    const m = KNOB_TEXT.exec(text);
    if (m) found.push(`${file} holds ${m[0]}`);
  }
  return found;
}

test('the knob finder finds the knobs that used to be in the product (this test can fail)', () => {
  assert.deepEqual(
    envNames("const HOP = process.env.BENCH_HOP_TIMING === '1'; x(env, 'PORT'); env['PLUGIN_FAULT_STALL_WORKER']"),
    ['BENCH_HOP_TIMING', 'PORT', 'PLUGIN_FAULT_STALL_WORKER'],
  );
  assert.deepEqual(
    ['BENCH_HOP_TIMING', 'PLUGIN_FAULT_STALL_WORKER', 'RUN_TESTS', 'DEFAULT_TIMEOUT', 'TESTNET_URL', 'PORT'].filter(
      isKnob,
    ),
    ['BENCH_HOP_TIMING', 'PLUGIN_FAULT_STALL_WORKER', 'RUN_TESTS'],
  );
  assert.match("req.headers['x-relaybox-hop-timing']", KNOB_TEXT);
});

test('src/ (but src/config/) and runtime/ read no test or bench knob and carry no hop-timing header', () => {
  const files = [...sourceFiles('src').filter((f) => !f.startsWith('src/config/')), ...sourceFiles('runtime')];
  assert.ok(
    files.length > 100 && files.includes('runtime/process/server.ts') && files.includes('src/api/plugins/routes.ts'),
    'the product is read',
  );
  assert.deepEqual(knobsIn(files), []);
});

// src/config/ too: its table of variables (src/config/env.ts) holds no fault or bench switch.
test('src/config/ parses no test or bench knob', () => {
  assert.deepEqual(knobsIn(sourceFiles('src/config')), []);
});
