// Signer use cases: config signers seeded (never their keys), signers created through the API with a key stored sealed,
// list, get, delete (refused while a relayer uses it), and resolving a signer for a relayer's network type.
import { randomUUID } from 'node:crypto';
import type { SignerConfig, SignerType } from '../../config/config.ts';
import { applyDefaults, SIGNER_SCHEMAS } from '../../config/signer-schemas.ts';
import { SUPPORTED_SIGNER_TYPES } from '../../config/signer-types.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { NetworkType, Page, PageRequest } from '../types.ts';
import type { Log } from '../log.ts';
import type { SecretBox } from '../secret-box.ts';
import type { RelayersRepo } from '../relayers/ports.ts';
import type { Signer, SignerResolver, SignerRow, SignersRepo } from './ports.ts';
import { entryOf, publicConfig, secretFields } from './entries.ts';
import { boundedSigner } from './bounded.ts';
import { DEFAULT_SIGNER_TIMEOUT_MS } from '../../config/config.ts';

/** The reference's SignerResponse: the type and its config without a secret field (a local signer shows nothing). */
export interface SignerView {
  id: string;
  type: SignerType;
  config: Record<string, unknown>;
}

/**
 * POST /api/v1/signers after schema validation: the reference's `plain` type with a hex key, or another type with its
 * config (src/config/signer-schemas.ts requestSchemaOf: each secret field a string).
 */
export interface CreateSignerInput {
  id?: string;
  type: string;
  config: Record<string, unknown>;
}

export interface SignerService {
  list(query: PageRequest): Promise<Page<SignerView>>;
  get(id: string): Promise<SignerView>;
  create(input: CreateSignerInput): Promise<SignerView>;
  remove(id: string): Promise<void>;
  /** The signer for a network type (address derived from its key); throws a 400 naming the problem. */
  resolve(id: string, networkType: NetworkType): Promise<Signer>;
}

const KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/** A type of the API's request (`plain` or another signer type) whose adapter is not there refuses with the list. */
function checkRequestType(
  type: string,
  supported: readonly SignerType[],
): asserts type is Exclude<SignerType, 'local'> | 'plain' {
  const offered = ['plain', ...supported.filter((t) => t !== 'local')];
  if (offered.includes(type)) return;
  throw new ValidationError(
    `'type': signer type '${type}' is not supported by Relaybox (supported: ${offered.join(', ')}), or use a keystore in the config file`,
  );
}

export interface SignerServiceDeps {
  repo: SignersRepo;
  relayers: Pick<RelayersRepo, 'usingSigner'>;
  signers: readonly SignerConfig[];
  secrets: SecretBox;
  /** The signer adapters (src/signers/), by the config entry's type. */
  resolveSigner: SignerResolver;
  logger: Log;
  /** SIGNER_TIMEOUT_MS: how long one signature may take before it fails as SIGNER_UNAVAILABLE. */
  signTimeoutMs?: number;
  /** The types whose adapter is there (default SUPPORTED_SIGNER_TYPES); tests name others. */
  supportedTypes?: readonly SignerType[];
}

export async function createSignerService(deps: SignerServiceDeps): Promise<SignerService> {
  const { repo, secrets, logger } = deps;
  const configured = new Map(deps.signers.map((s) => [s.id, s]));
  const now = new Date().toISOString();
  await repo.seed(
    deps.signers.map((s) => ({
      id: s.id,
      type: s.type,
      config: publicConfig(s.type, s.config),
      secret: null,
      source: 'config' as const,
      created_at: now,
      updated_at: now,
    })),
  );
  const deleted = (await repo.deletedIds()).filter((id) => configured.has(id));
  if (deleted.length)
    logger.warn(
      { signerIds: deleted },
      'config drift: these config signers were deleted through the API and stay deleted (the store wins)',
    );

  const require = async (id: string) => {
    const row = await repo.get(id);
    if (!row) throw new NotFoundError('SIGNER_NOT_FOUND', { reason: `signer '${id}' not found` });
    return row;
  };
  const resolved = new Map<string, Signer>();
  // A config signer is shown as its config entry says now (its row keeps what was seeded first).
  const toView = (row: SignerRow): SignerView => {
    const entry = row.source === 'config' ? configured.get(row.id) : undefined;
    if (entry) return { id: row.id, type: entry.type, config: publicConfig(entry.type, entry.config) };
    return { id: row.id, type: row.type as SignerType, config: row.type === 'local' ? {} : row.config };
  };
  /** The entry an API-created signer's adapter reads, its secrets opened. */
  const apiEntry = (row: SignerRow): SignerConfig => {
    const opened = secrets.open(row.secret ?? '', `signer:${row.id}`);
    if (row.type === 'local') return { id: row.id, type: 'local', private_key: opened };
    return entryOf(
      row.id,
      row.type as Exclude<SignerType, 'local'>,
      row.config,
      JSON.parse(opened) as Record<string, string>,
    );
  };

  return {
    async list({ page, per_page }) {
      const [rows, total] = await Promise.all([
        per_page === 0 ? [] : repo.list(per_page, (page - 1) * per_page),
        repo.count(),
      ]);
      return { items: rows.map(toView), pagination: { current_page: page, per_page, total_items: total } };
    },
    get: async (id) => toView(await require(id)),
    async create(input) {
      const { type } = input;
      checkRequestType(type, deps.supportedTypes ?? SUPPORTED_SIGNER_TYPES);
      let row: Pick<SignerRow, 'type' | 'config'> & { secret: string };
      if (type === 'plain') {
        const key = String(input.config.key);
        if (!KEY.test(key))
          throw new ValidationError("'config.key' must be a 32-byte key in hex (64 hex digits, 0x optional)");
        row = { type: 'local', config: {}, secret: key.replace(/^0x/, '') };
      } else {
        // Every secret field goes into the sealed `secret`, never into `config` (which GET answers show).
        const config = structuredClone(input.config);
        applyDefaults(SIGNER_SCHEMAS[type].schema, config);
        row = { type, config: publicConfig(type, config), secret: JSON.stringify(secretFields(type, config)) };
      }
      const id = input.id ?? randomUUID();
      const at = new Date().toISOString();
      if (
        !(await repo.insert({
          id,
          ...row,
          secret: secrets.seal(row.secret, `signer:${id}`),
          source: 'api',
          created_at: at,
          updated_at: at,
        }))
      ) {
        throw new ConflictError('SIGNER_EXISTS', { reason: `a signer with id '${id}' already exists` });
      }
      logger.info({ signerId: id, type: row.type }, 'signer created');
      return toView(await require(id));
    },
    async remove(id) {
      await require(id);
      const users = await deps.relayers.usingSigner(id);
      if (users.length) {
        throw new AppError('BAD_REQUEST', {
          reason: `Cannot delete signer '${id}' because it is being used by ${users.length} relayer(s): ${users.join(', ')}. Please remove or reconfigure these relayers before deleting the signer.`,
        });
      }
      await repo.remove(id, new Date().toISOString());
      for (const k of resolved.keys()) if (k.startsWith(`${id}\0`)) resolved.delete(k);
      logger.info({ signerId: id }, 'signer deleted');
    },
    async resolve(id, networkType) {
      const cacheKey = `${id}\0${networkType}`;
      const known = resolved.get(cacheKey);
      if (known) return known;
      // A config signer deleted through the API still signs for the config relayers that name it.
      const row = (await repo.get(id)) ?? (configured.has(id) ? undefined : await require(id));
      let signer: Signer;
      try {
        const entry = row?.source === 'api' ? apiEntry(row) : configured.get(id);
        if (!entry)
          throw new Error(`signer '${id}' is in the store but no longer in the config file, which holds its key`);
        signer = boundedSigner(
          await deps.resolveSigner(entry, networkType),
          id,
          deps.signTimeoutMs ?? DEFAULT_SIGNER_TIMEOUT_MS,
        );
      } catch (err) {
        // A remote signer's provider answer (scrubbed by the adapter), for whoever debugs: never in the answer.
        const detail = (err as { detail?: unknown }).detail;
        if (typeof detail === 'string')
          logger.debug({ signerId: id, providerAnswer: detail }, 'the signer provider answered (debug only)');
        throw new ValidationError(`'signer_id': ${(err as Error).message}`);
      }
      resolved.set(cacheKey, signer);
      return signer;
    },
  };
}
