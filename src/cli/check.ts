// `relaybox check`: the config file and the environment validated as a start validates them, what that start would
// run printed, and every problem listed. Nothing is started: no store opened, no devnet, no runtime, no listener.
import { loadConfig, type Config } from '../config/config.ts';
import { storeLocation } from '../store/location.ts';
import type { EnvFileResult } from '../config/env-file.ts';
import { portProblems } from './ports.ts';

/** A stand-in for a secret the environment lacks, so the check goes on to the problems after that one (never used). */
const PLACEHOLDER = 'relaybox-check-placeholder-value-0123456789';
const MAX_ROUNDS = 64;

/**
 * Where a refusal names a variable, the check carries on without it: a variable with a bad value is dropped (its
 * default applies), one that is missing gets a stand-in. A problem in the config file itself ends the search (the
 * file's validation stops at its first problem). Returns false when nothing could be changed.
 */
function relax(env: NodeJS.ProcessEnv, message: string): boolean {
  if (message.startsWith('invalid config file ')) return false;
  const missing = /environment variable ([A-Za-z_][A-Za-z0-9_]*) is not set/.exec(message)?.[1];
  if (missing !== undefined) {
    env[missing] = PLACEHOLDER;
    return true;
  }
  const named = /^([A-Z][A-Z0-9_]+)(?=[ =:])/.exec(message)?.[1];
  if (named === undefined) return false;
  if (env[named] !== undefined && env[named] !== '') {
    delete env[named];
    return true;
  }
  // A variable that is required but unset (API_KEY with DATABASE_URL): a stand-in.
  if (/ is required /.test(message)) {
    env[named] = PLACEHOLDER;
    return true;
  }
  return false;
}

/** loadConfig over and over, each refusal noted, until it passes or a refusal cannot be stepped over. */
function collectProblems(env: NodeJS.ProcessEnv): { config: Config | undefined; problems: string[] } {
  const work = { ...env };
  const problems: string[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    try {
      return { config: loadConfig(work), problems };
    } catch (err) {
      const message = (err as Error).message;
      if (problems.includes(message) || (problems.push(message), !relax(work, message))) break;
    }
  }
  return { config: undefined, problems };
}

function describe(config: Config, envFile: EnvFileResult): string[] {
  const f = config.file;
  const devnets = f.networks.filter((n) => n.devnet !== undefined).map((n) => n.network);
  const byType = (type: string) => f.networks.filter((n) => n.type === type).length;
  const metrics =
    config.metricsPort === undefined
      ? 'not served on a port of its own (GET /metrics behind the API key)'
      : `http://${config.metricsHost}:${config.metricsPort}/metrics (no key)`;
  const lines = [
    `env file     ${envFile.file ?? 'none (no .env in the working directory or a parent)'}${envFile.file ? ` (${envFile.set.length} set, ${envFile.kept.length} kept from the environment)` : ''}`,
    `config       ${config.configPath} (found by ${config.configLocation.source})`,
    `API          http://${config.host}:${config.port}/api/v1 (${config.apiKeyGenerated ? 'API_KEY not set: a key generated at each start' : 'API_KEY set'})`,
    `metrics      ${metrics}`,
    `store        ${storeLocation(config.databaseUrl, config.dataDir)}`,
    `redis        ${config.redisUrl ? 'REDIS_URL set: rate limits shared' : 'none (rate limits per process)'}`,
    `logs         level ${config.logLevel}, ${config.logOutput.mode === 'file' ? `files in ${config.logOutput.dir}` : 'stdout'}`,
    `networks     ${f.networks.length} (evm ${byType('evm')}, solana ${byType('solana')}, stellar ${byType('stellar')})${devnets.length ? `; anvil devnets started for ${devnets.join(', ')}` : ''}`,
    `signers      ${f.signers.length ? f.signers.map((s) => `${s.id} (${s.type})`).join(', ') : 'none'}`,
    `relayers     ${f.relayers.length ? f.relayers.map((r) => `${r.id} (${r.network_type}:${r.network}, signer ${r.signer_id}${r.paused ? ', paused' : ''})`).join(', ') : 'none'}`,
    `plugins      ${f.plugins.length} configured, folder ${config.pluginsDir}; runtime with ${config.pluginRuntime.threads} worker threads`,
    `storage key  ${config.storageEncryptionKey ? 'STORAGE_ENCRYPTION_KEY set' : 'not set: stored secrets kept in plain text'}`,
  ];
  for (const notice of config.notices) lines.push(`notice       ${notice.message}`);
  return lines;
}

/** Prints the report on `out`; the exit status: 0 when the start would go ahead, 1 when a problem was found. */
export async function runCheck(
  env: NodeJS.ProcessEnv,
  envFile: EnvFileResult,
  out: (line: string) => void,
): Promise<number> {
  const { config, problems } = collectProblems(env);
  if (config) problems.push(...(await portProblems(config)));
  const refused = problems.length > 0;
  out(refused ? 'relaybox check: the start would be refused' : 'relaybox check: a start would run');
  if (config) {
    out(refused ? 'what would start once the problems below are fixed:' : 'what would start:');
    for (const line of describe(config, envFile)) out(`  ${line}`);
  }
  if (problems.length === 0) {
    out('no problems found');
    return 0;
  }
  out(`${problems.length} problem${problems.length === 1 ? '' : 's'}:`);
  for (const p of problems) out(`  - ${p}`);
  return 1;
}
