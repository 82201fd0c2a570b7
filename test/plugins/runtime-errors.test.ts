// One table of the runtime's verdicts (runtime/common/errors.ts) and docs/plugins.md's "The runtime's verdicts" say the
// same, both ways, as src/errors.ts and docs/errors.md do (test/errors-catalogue.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { RUNTIME_CODES, RUNTIME_ERRORS, runtimeError } from '../../runtime/common/errors.ts';

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const section = read('docs/plugins.md').split("### The runtime's verdicts")[1]!.split('\n#')[0]!;
/** The section's rows as [code, status, text]. */
const documented = section
  .split('\n')
  .filter((line) => /^\| `[A-Z][A-Z0-9_]*` \|/.test(line))
  .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| /, '')))
  .map(([code, status, text]) => [code!.replaceAll('`', ''), Number(status), text!] as const);

test("every runtime verdict is in docs/plugins.md's table with its code, status and text", () => {
  assert.ok(documented.length >= 20, 'the table is read');
  for (const [name, row] of Object.entries(RUNTIME_ERRORS)) {
    assert.ok(
      documented.some(([code, status, text]) => code === row.code && status === row.status && text === row.text),
      `${name} (${row.code} ${row.status} '${row.text}') is missing from docs/plugins.md`,
    );
  }
});

test("every row of docs/plugins.md's table is a runtime verdict, once", () => {
  const rows = Object.values(RUNTIME_ERRORS);
  for (const [code, status, text] of documented) {
    assert.equal(
      rows.filter((row) => row.code === code && row.status === status && row.text === text).length,
      1,
      `docs/plugins.md lists ${code} ${status} '${text}', which runtime/common/errors.ts does not (or twice)`,
    );
  }
  assert.equal(documented.length, rows.length);
});

test('a verdict fills in its text, keeps its status and Retry-After, and its codes are the reserved ones', () => {
  assert.deepEqual(runtimeError('pluginBusy', { id: 'p', running: 2, queued: 3 }), {
    code: 'PLUGIN_BUSY',
    message: 'plugin p has 2 call(s) running and 3 waiting, its limit; retry shortly',
    status: 429,
    details: {},
    retryAfter: 1,
  });
  assert.deepEqual(runtimeError('timeout', { timeout: 0.5 }, { timeout: 0.5 }), {
    code: 'TIMEOUT',
    message: 'Plugin execution timed out after 0.5 s',
    status: 504,
    details: { timeout: 0.5 },
  });
  assert.equal(
    runtimeError('loadError', { reason: 'a {reason} of its own' }).message,
    'Plugin failed to load: a {reason} of its own',
    'a value is not read as a placeholder',
  );
  for (const code of [
    'TIMEOUT',
    'MEMORY_LIMIT_EXCEEDED',
    'API_CALL_LIMIT',
    'RUNTIME_UNAVAILABLE',
    'INTERNAL',
    'CALL_ENDED',
  ])
    assert.ok(RUNTIME_CODES.has(code), code);
});

test("the sandbox's own verdict (CALL_ENDED, given inside the isolate, which imports nothing) has the table's text", () => {
  const prelude = read('runtime/isolate/prelude/core.ts');
  const { code, status, text } = RUNTIME_ERRORS.callEnded;
  assert.ok(
    prelude.includes(`apiError('${code}', '${text}', ${status}`),
    'runtime/isolate/prelude/core.ts gives CALL_ENDED as the table says',
  );
});
