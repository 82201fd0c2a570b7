// Where the config file is, and what its relative paths mean: ours (relative to the config file) and the
// OpenZeppelin Relayer's (relative to its working directory, the folder holding its `config/` folder).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readEnv } from './env.ts';

export interface ConfigLocation {
  /** The config file, absolute. */
  file: string;
  /** Which variables named it: CONFIG_PATH (ours), CONFIG_DIR/CONFIG_FILE_NAME or IN_DOCKER (the reference's), or none. */
  source: 'CONFIG_PATH' | 'CONFIG_DIR' | 'IN_DOCKER' | 'default';
  /**
   * The reference's working directory when the config is laid out as its deployments are (`<root>/config/config.json`):
   * the parent of CONFIG_DIR, or of CONFIG_PATH's folder when that folder is named `config`. Undefined otherwise.
   */
  referenceRoot: string | undefined;
  /** Folders a relative path is tried against, in order: the config file's, the reference root, the working directory. */
  bases: string[];
}

/** Ours when nothing names a config: the example next to the code. */
export interface LocateDefaults {
  defaultFile: string;
  cwd: string;
}

const DEFAULT_REFERENCE_FILE_NAME = 'config.json';

function referenceFile(
  env: NodeJS.ProcessEnv,
  cwd: string,
): { file: string; source: 'CONFIG_DIR' | 'IN_DOCKER' } | undefined {
  const e = readEnv(env);
  const name = e.CONFIG_FILE_NAME ?? DEFAULT_REFERENCE_FILE_NAME;
  // The reference: IN_DOCKER=true means `config/` under the working directory, whatever CONFIG_DIR says.
  if (e.IN_DOCKER) return { file: path.resolve(cwd, 'config', name), source: 'IN_DOCKER' };
  if (e.CONFIG_DIR !== undefined || e.CONFIG_FILE_NAME !== undefined)
    return { file: path.resolve(cwd, e.CONFIG_DIR ?? './config', name), source: 'CONFIG_DIR' };
  return undefined;
}

/** Finds the config file from CONFIG_PATH, or the reference's IN_DOCKER / CONFIG_DIR + CONFIG_FILE_NAME; throws one sentence on a conflict. */
export function locateConfig(env: NodeJS.ProcessEnv, defaults: LocateDefaults): ConfigLocation {
  const { cwd } = defaults;
  const reference = referenceFile(env, cwd);
  const configPath = readEnv(env).CONFIG_PATH;
  const ours = configPath !== undefined ? path.resolve(cwd, configPath) : undefined;
  if (ours && reference && ours !== reference.file) {
    throw new Error(
      `CONFIG_PATH names ${ours} but ${reference.source === 'IN_DOCKER' ? 'IN_DOCKER=true' : 'CONFIG_DIR/CONFIG_FILE_NAME'} names ${reference.file}: set only one of them`,
    );
  }
  const file = ours ?? reference?.file ?? path.resolve(cwd, defaults.defaultFile);
  const source = ours ? 'CONFIG_PATH' : reference ? reference.source : 'default';
  const dir = path.dirname(file);
  const referenceRoot = reference || (ours && path.basename(dir) === 'config') ? path.dirname(dir) : undefined;
  const bases = [...new Set([dir, ...(referenceRoot ? [referenceRoot] : []), cwd])];
  return { file, source, referenceRoot, bases };
}

/** The first of `bases` where `relative` exists (an absolute path is itself), and every place looked. */
export function findRelative(
  relative: string,
  bases: readonly string[],
): { found: string | undefined; looked: string[] } {
  const looked = path.isAbsolute(relative) ? [relative] : [...new Set(bases.map((b) => path.resolve(b, relative)))];
  return { found: looked.find((p) => existsSync(p)), looked };
}

/** "A, B and C": the places looked, for a refusal. */
export function listLooked(looked: readonly string[]): string {
  return looked.length <= 1 ? (looked[0] ?? '') : `${looked.slice(0, -1).join(', ')} and ${looked.at(-1)}`;
}
