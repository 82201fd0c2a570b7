#!/usr/bin/env node
// Adds to package-lock.json the entries of other platforms' optional packages that this machine's npm registry does
// not carry (litesvm publishes one native package per platform). Without them `npm ci` refuses the lock ("Missing: …
// from lock file"); with them, npm skips each one whose os/cpu/libc do not match. Run after any `npm install`.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const LOCK = path.join(__dirname, '..', 'package-lock.json');
// name suffix → [os, cpu, libc]
const PLATFORMS = {
  'darwin-arm64': ['darwin', 'arm64'],
  'darwin-x64': ['darwin', 'x64'],
  'linux-arm64-gnu': ['linux', 'arm64', 'glibc'],
  'linux-arm64-musl': ['linux', 'arm64', 'musl'],
  'linux-x64-gnu': ['linux', 'x64', 'glibc'],
  'linux-x64-musl': ['linux', 'x64', 'musl'],
  'win32-x64-msvc': ['win32', 'x64'],
};

/** Every optional dependency named by a locked package, missing from the lock. */
function missing(lock) {
  const out = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies || {})) {
      if (!lock.packages[`node_modules/${name}`] && !lock.packages[`${key}/node_modules/${name}`])
        out.push({ parent: entry, name, version });
    }
  }
  return out;
}

/**
 * Some packages write a note instead of a version range in `engines` (@openzeppelin/relayer-sdk: `"npm": "use pnpm"`).
 * With engine-strict (.npmrc) `npm ci` would refuse the lock over that note, so such fields are dropped from the
 * lock; real ranges (node) are kept and still checked.
 */
function relaxEngineNotes(lock) {
  const relaxed = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (!entry.engines || typeof entry.engines !== 'object') continue;
    for (const [engine, range] of Object.entries(entry.engines)) {
      if (typeof range === 'string' && /^use /i.test(range.trim())) {
        delete entry.engines[engine];
        relaxed.push(`${key.replace(/^.*node_modules\//, '')} engines.${engine}`);
      }
    }
  }
  return relaxed;
}

function complete(lock) {
  const added = [];
  for (const { parent, name, version } of missing(lock)) {
    const suffix = Object.keys(PLATFORMS).find((s) => name.endsWith(`-${s}`));
    if (!suffix) throw new Error(`${name}: unknown platform suffix; add it to PLATFORMS in scripts/complete-lock.cjs`);
    const [os, cpu, libc] = PLATFORMS[suffix];
    const base = name.startsWith('@') ? name.split('/')[1] : name;
    const entry = {
      version,
      resolved: `https://registry.npmjs.org/${name}/-/${base}-${version}.tgz`,
      cpu: [cpu],
      optional: true,
      os: [os],
    };
    if (libc) entry.libc = [libc];
    if (parent.dev) entry.dev = true;
    lock.packages[`node_modules/${name}`] = entry;
    added.push(name);
  }
  added.push(...relaxEngineNotes(lock));
  const [root, ...rest] = Object.entries(lock.packages);
  lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  return added;
}

if (require.main === module) {
  const lock = JSON.parse(fs.readFileSync(LOCK, 'utf8'));
  const added = complete(lock);
  fs.writeFileSync(LOCK, JSON.stringify(lock, null, 2) + '\n');
  console.log(added.length ? `added ${added.join(', ')}` : 'package-lock.json is complete');
}

module.exports = { missing };
