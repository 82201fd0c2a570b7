// Refuses a Node.js outside package.json's engines.node in one line that names the pinned version (.nvmrc, the one
// place it is written) and the command getting it. Runs first in `bin/relaybox` and `npm test` (its pre-script), on
// whatever Node is on PATH: plain old CommonJS, no syntax newer than ES5. (`npm ci` is stopped earlier, by
// engine-strict in .npmrc.)
'use strict';
var fs = require('fs');
var path = require('path');

var root = path.join(__dirname, '..');
var range = require(path.join(root, 'package.json')).engines.node; // ">=24.22.3 <25"
var pinned = fs.readFileSync(path.join(root, '.nvmrc'), 'utf8').trim().replace(/^v/, '');

function parts(version) {
  return version.split('.').map(function (n) {
    return parseInt(n, 10) || 0;
  });
}
function compare(a, b) {
  var x = parts(a),
    y = parts(b);
  for (var i = 0; i < 3; i++) if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) < (y[i] || 0) ? -1 : 1;
  return 0;
}
// engines.node holds only ">=A.B.C" and "<D" bounds: the two a pinned range needs.
function satisfies(version, spec) {
  return spec
    .split(/\s+/)
    .filter(Boolean)
    .every(function (bound) {
      var m = /^(>=|<)(\d+(?:\.\d+){0,2})$/.exec(bound);
      if (!m) return true;
      return m[1] === '>=' ? compare(version, m[2]) >= 0 : compare(version, m[2]) < 0;
    });
}

// The npm registry's plain Node binaries (no install script, no root).
var PACKAGED = { 'linux-x64': 1, 'linux-arm64': 1, 'darwin-x64': 1, 'darwin-arm64': 1 };

function howToGet(version) {
  var pkg = 'node-' + process.platform + '-' + process.arch;
  if (!PACKAGED[process.platform + '-' + process.arch]) return 'nvm install ' + version;
  return (
    'npm install --prefix .toolchain ' +
    pkg +
    '@' +
    version +
    ' && export PATH="$PWD/.toolchain/node_modules/' +
    pkg +
    '/bin:$PATH"'
  );
}

if (!satisfies(process.versions.node, range)) {
  process.stderr.write(
    'Relaybox needs Node.js ' +
      pinned +
      ' (supported: ' +
      range +
      '), this is ' +
      process.version +
      ' (' +
      process.execPath +
      '); get it without root: ' +
      howToGet(pinned) +
      '\n',
  );
  process.exit(1);
}
