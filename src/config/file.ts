// The config file: read, validated against its schema, networks and keystores found, references checked.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { compile } from '../validation/compile.ts';
import { configFileSchema } from './schema.ts';
import { findNetwork, loadNetworks, type NetworkConfig } from './networks.ts';
import { parsePolicies } from './relayer-policies.ts';
import { checkRelayerSigners } from './relayer-pools.ts';
import { checkRelayerFunding } from './relayer-funding.ts';
import { checkRegularFile, CONFIG_FILE_MAX_BYTES, KEYSTORE_MAX_BYTES, readJsonFile } from './read-file.ts';
import { findRelative, listLooked, type ConfigLocation } from './locate.ts';
import { checkSignerTypes } from './signer-types.ts';
import { applyDefaults, SIGNER_SCHEMAS } from './signer-schemas.ts';
import type { ConfigFile } from './types.ts';

const validateFile = compile<ConfigFile>(configFileSchema, 'config');

/** Where a config file's relative paths are tried (src/config/locate.ts); by default its folder, then the working directory. */
export type ConfigPlaces = Pick<ConfigLocation, 'bases' | 'referenceRoot'>;

/** Reads and validates the config file; throws an Error naming the bad field. */
export function loadConfigFile(
  configPath: string,
  places: ConfigPlaces = { bases: [path.dirname(configPath), process.cwd()], referenceRoot: undefined },
): ConfigFile {
  // The reason names the path and what is wrong, never the file's text.
  const parsed = readJsonFile(configPath, CONFIG_FILE_MAX_BYTES, 'config file');
  try {
    checkSignerTypes(parsed);
    const file = validateFile(parsed);
    file.networks =
      file.networks === undefined
        ? defaultNetworks(file, configPath, places)
        : loadNetworks(file.networks, places.bases);
    file.notifications ??= [];
    file.plugins ??= [];
    for (const s of file.signers) if (s.config) applyDefaults(SIGNER_SCHEMAS[s.type].schema, s.config);
    resolveKeystorePaths(file, places.bases);
    checkReferences(file);
    return file;
  } catch (err) {
    const reason = (err as { reason?: string }).reason ?? (err as Error).message;
    throw new Error(`invalid config file ${configPath}: ${reason}`, { cause: err });
  }
}

/**
 * `networks` left out: the reference then reads its default directory, `./config/networks` from its working directory.
 * Tried: that folder under the reference root, then `networks/` next to the config file. Neither exists: no networks,
 * which suits a config without relayers; one with relayers is refused, naming where we looked.
 */
function defaultNetworks(file: ConfigFile, configPath: string, places: ConfigPlaces): NetworkConfig[] {
  const candidates = [
    ...new Set([
      ...(places.referenceRoot ? [path.join(places.referenceRoot, 'config', 'networks')] : []),
      path.join(path.dirname(configPath), 'networks'),
    ]),
  ];
  const found = candidates.find((dir) => existsSync(dir));
  if (found) return loadNetworks(found, []);
  if (file.relayers.length === 0) return [];
  throw new Error(
    `networks: not given, and no default networks directory was found (looked in ${listLooked(candidates)}): give "networks" (a list, or a directory such as the reference's config/networks)`,
  );
}

/**
 * A keystore path is tried against the config file's folder, the reference's working directory (its examples say
 * "config/keys/local-signer.json" from there) and the process's (src/config/locate.ts); it becomes absolute here.
 */
function resolveKeystorePaths(file: ConfigFile, bases: readonly string[]): void {
  file.signers.forEach((s, i) => {
    if (s.type !== 'local' || !s.config) return;
    if (s.private_key !== undefined || s.private_key_env !== undefined)
      throw new Error(`signers.${i}: give either 'config' (a keystore) or 'private_key'/'private_key_env', not both`);
    const { found, looked } = findRelative(s.config.path, bases);
    if (!found)
      throw new Error(
        `signers.${i}.config.path: keystore '${s.config.path}' not found (looked in ${listLooked(looked)})`,
      );
    // Refused here, at load, rather than when the signer is first used: a FIFO or a device fails the start at once.
    checkRegularFile(found, KEYSTORE_MAX_BYTES, `signers.${i}.config.path: keystore`);
    s.config.path = found;
  });
}

function checkReferences(file: ConfigFile): void {
  const unique = (kind: string, ids: string[]) => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) throw new Error(`duplicate ${kind} id '${id}'`);
      seen.add(id);
    }
    return seen;
  };
  const signers = unique(
    'signer',
    file.signers.map((s) => s.id),
  );
  const notifications = unique(
    'notification',
    file.notifications.map((n) => n.id),
  );
  unique(
    'relayer',
    file.relayers.map((r) => r.id),
  );
  unique(
    'plugin',
    file.plugins.map((p) => p.id),
  );
  file.relayers.forEach((r, i) => {
    r.network_type = findNetwork(file.networks, r.network, r.network_type, `relayers.${i}`).type;
    checkRelayerSigners(r, i, signers);
    if (r.notification_id && !notifications.has(r.notification_id)) {
      throw new Error(`relayers.${i}.notification_id: unknown notification '${r.notification_id}'`);
    }
    if (r.policies !== undefined) {
      try {
        r.policies = parsePolicies(r.network_type, r.policies);
      } catch (err) {
        throw new Error(`relayers.${i}: ${(err as { reason?: string }).reason ?? (err as Error).message}`, {
          cause: err,
        });
      }
    }
    checkRelayerFunding(r, i, signers, file.relayers);
  });
}
