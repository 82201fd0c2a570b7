// The command line (util.parseArgs): which command, with which options; anything else is refused with the usage.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export type Command =
  | { name: 'start' }
  | { name: 'help' }
  | { name: 'version' }
  | { name: 'check' }
  | { name: 'keystore-create'; options: KeystoreCreateOptions };

/** The reference's `create_key` flags (helpers/create_key.rs), same names and meaning. */
export interface KeystoreCreateOptions {
  password: string | undefined;
  outputDir: string;
  filename: string | undefined;
  force: boolean;
  disablePasswordCheck: boolean;
}

/** A command line we do not understand: the message is printed above the usage, and the exit status is 2. */
export class UsageError extends Error {}

const GLOBAL = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'V' } } as const;

const KEYSTORE_CREATE = {
  ...GLOBAL,
  password: { type: 'string', short: 'p' },
  'output-dir': { type: 'string', short: 'o', default: '.' },
  filename: { type: 'string', short: 'f' },
  force: { type: 'boolean' },
  'disable-password-check': { type: 'boolean' },
} as const;

function parse<T extends ParseArgsOptionsConfig>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    // parseArgs' own sentence names the option ("Unknown option '--x'"); its error code is not for people.
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}

function refuseExtra(positionals: string[], command: string): void {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' after '${command}'`);
}

/** The command `argv` (without node and the script) asks for; throws UsageError for anything else. */
export function parseCommand(argv: string[]): Command {
  // The keystore command has options of its own: parsed with them, not refused as unknown global ones.
  if (argv[0] === 'keystore') return keystoreCommand(argv.slice(1));
  const first = parse(argv, GLOBAL);
  const [word, ...rest] = first.positionals;
  if (first.values.help) return { name: 'help' };
  if (first.values.version) return { name: 'version' };
  if (word === undefined) return { name: 'start' };
  if (word === 'help') return { name: 'help' };
  if (word === 'start' || word === 'check') {
    refuseExtra(rest, word);
    return { name: word };
  }
  if (word === 'keystore') return keystoreCommand(rest);
  throw new UsageError(`unknown command '${word}'`);
}

function keystoreCommand(argv: string[]): Command {
  const { values, positionals } = parse(argv, KEYSTORE_CREATE);
  if (values.help) return { name: 'help' };
  const [sub, ...rest] = positionals;
  if (sub !== 'create')
    throw new UsageError(
      sub === undefined ? "'keystore' needs a subcommand: create" : `unknown keystore subcommand '${sub}'`,
    );
  refuseExtra(rest, 'keystore create');
  return {
    name: 'keystore-create',
    options: {
      password: values.password as string | undefined,
      outputDir: values['output-dir'] as string,
      filename: values.filename as string | undefined,
      force: values.force === true,
      disablePasswordCheck: values['disable-password-check'] === true,
    },
  };
}
