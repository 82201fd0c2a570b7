// The Solana and Stellar libraries (~23 MiB of the HTTP process together) are loaded only when a network or a key of
// theirs is configured: from the entry point and from every signer adapter, no chain of static imports (code, not
// types) reaches them; they are reached through import() on the paths that need them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

// Static `import … from` / `export … from` and bare `import '…'`; `import type` and all-type braces are erased.
const STATIC = /(?:^|\n)\s*(import|export)\s+(?:(type\s)?([^'"]*?)\s+from\s+)?['"]([^'"]+)['"]/g;
const LAZY_ONLY = /^@(solana|stellar)\//;

function staticImports(file: string): { local: string[]; packages: string[] } {
  const local: string[] = [];
  const packages: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
    const [, , typeOnly, names = '', spec] = m;
    if (typeOnly || (/^\{[^}]*\}$/.test(names.trim()) && names.replace(/[{}\s]/g, '').split(',').filter(Boolean).every((n) => n.startsWith('type')))) continue;
    if (spec!.startsWith('.')) local.push(path.resolve(path.dirname(file), spec!));
    else packages.push(spec!);
  }
  return { local, packages };
}

/** Each file that statically imports a lazy-only library, with the chain of imports from `entry` to it. */
function reached(entry: string): string[] {
  const from = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  const found: string[] = [];
  const chain = (f: string | null): string => (f ? `${path.relative(PROJECT_ROOT, f)}${from.get(f) ? ` <- ${chain(from.get(f)!)}` : ''}` : '');
  while (queue.length > 0) {
    const file = queue.shift()!;
    const { local, packages } = staticImports(file);
    for (const p of packages.filter((p) => LAZY_ONLY.test(p))) found.push(`${p}: ${chain(file)}`);
    for (const next of local.filter((n) => !from.has(n))) {
      from.set(next, file);
      queue.push(next);
    }
  }
  return found;
}

const signersDir = path.join(PROJECT_ROOT, 'src/signers');
const adapters = readdirSync(signersDir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => path.join(signersDir, e.name, 'signer.ts'));

test('the service starts without a static import of the Solana or Stellar libraries', () => {
  assert.deepEqual(reached(path.join(PROJECT_ROOT, 'src/main.ts')), []);
});

test('no signer adapter statically imports the Solana or Stellar libraries: an EVM key never loads them', () => {
  assert.ok(adapters.length >= 9, `signer adapters found: ${adapters.length}`);
  for (const adapter of adapters) assert.deepEqual(reached(adapter), [], adapter);
});

test('the check sees a static import where there is one', () => {
  assert.ok(reached(path.join(PROJECT_ROOT, 'src/signers/local/resolve.ts')).some((line) => line.startsWith('@solana/kit: src/signers/local/resolve.ts')));
  assert.ok(reached(path.join(PROJECT_ROOT, 'src/domain/transactions/stellar/parts.ts')).some((line) => line.startsWith('@stellar/stellar-base')));
});
