// The command line's dispatch: every command but `start` runs here and ends the process with its exit status.
import { parseCommand, UsageError, type Command } from './args.ts';
import { USAGE, version } from './usage.ts';
import { loadEnvFile, type EnvFileResult } from '../config/env-file.ts';
import { processEnv } from '../config/process-env.ts';
import { runCheck } from './check.ts';
import { createKeystore } from './keystore-create.ts';

/** What main.ts goes on with: start the service (with what `.env` did, for its log), or exit with this status. */
export type CliOutcome = { start: true; envFile: EnvFileResult } | { start: false; status: number };

const print = (line: string) => process.stdout.write(`${line}\n`);
const printError = (line: string) => process.stderr.write(`${line}\n`);

function command(argv: string[]): Command | number {
  try {
    return parseCommand(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    printError(`relaybox: ${err.message}\n`);
    printError(USAGE);
    return 2;
  }
}

/** Runs `argv`'s command; `.env` is read first for every command that reads settings. */
export async function runCli(argv: string[]): Promise<CliOutcome> {
  const cmd = command(argv);
  if (typeof cmd === 'number') return { start: false, status: cmd };
  if (cmd.name === 'help') {
    print(USAGE);
    return { start: false, status: 0 };
  }
  if (cmd.name === 'version') {
    print(`relaybox ${version()}`);
    return { start: false, status: 0 };
  }
  let envFile: EnvFileResult;
  try {
    envFile = loadEnvFile();
  } catch (err) {
    printError(`relaybox: ${(err as Error).message}`);
    return { start: false, status: 1 };
  }
  if (cmd.name === 'start') return { start: true, envFile };
  if (cmd.name === 'check') return { start: false, status: await runCheck(processEnv(), envFile, print) };
  try {
    const { file, address } = createKeystore(cmd.options, processEnv());
    print('Generated new key:');
    print(`Keystore file created at: ${file}`);
    print(`Address: ${address}`);
    return { start: false, status: 0 };
  } catch (err) {
    printError(`relaybox keystore create: ${(err as Error).message}`);
    return { start: false, status: 1 };
  }
}
