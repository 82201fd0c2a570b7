// The usage text: printed by --help, and under every refused command line.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config/config.ts';

export const USAGE = `Usage: relaybox [command] [options]

Commands:
  start (or none)     start the service (config and settings from the environment and .env)
  check               validate the config file and the environment, print what would start, list every
                      problem; exits 1 when there is one. Starts nothing, opens no store
  keystore create     write a new local signer keystore (the OpenZeppelin Relayer's create_key tool):
      -p, --password <pw>          its passphrase (default: KEYSTORE_PASSPHRASE from the environment or .env);
                                   12+ characters with upper and lower case letters, a digit and a symbol
      -o, --output-dir <dir>       folder to write to, created if missing (default: .)
      -f, --filename <name>        file name (default: key_<yyyyMMdd_HHmmss>.json)
          --force                  replace an existing file
          --disable-password-check accept a weak passphrase (tests only)
  help                this text

Options:
  -h, --help          this text
  -V, --version       the version

Settings are environment variables (docs/operating.md, "Environment variables"); a .env file in the working
directory or a parent is read first, and a variable already set wins over it.
`;

/** package.json's version. */
export function version(): string {
  return (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
