// runtime/protocol.ts is the door between the HTTP process and the runtime's rooms: message shapes and constants, no
// code. What both sides run lives in runtime/common/ (issue 43).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

const FILE = path.join(PROJECT_ROOT, 'runtime', 'protocol.ts');

test('runtime/protocol.ts exports no function, and holds none', async () => {
  const exported = Object.entries(await import(FILE));
  assert.ok(exported.length >= 5, 'its constants are read');
  for (const [name, value] of exported)
    assert.notEqual(typeof value, 'function', `protocol.ts exports the function ${name}`);
  // Its code, comments left out: no function or class anywhere (exported or not).
  const code = readFileSync(FILE, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
  assert.doesNotMatch(code, /\bfunction\b|\bclass\b/, 'protocol.ts holds code');
});

test('runtime/protocol.ts imports nothing for its code (types only)', () => {
  const text = readFileSync(FILE, 'utf8');
  for (const m of text.matchAll(/^\s*import\s+(?!type\s)(.*)$/gm))
    assert.fail(`protocol.ts imports code: ${m[0].trim()}`);
});
