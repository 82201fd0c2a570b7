// Signer use cases: config signers seeded (never their keys), signers created through the API with a key stored sealed,
// list, get, delete (refused while a relayer uses it), and resolving a signer for a relayer's network type.
import { randomUUID } from 'node:crypto';
import type { SignerConfig } from '../../config/config.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { NetworkType, Page, PageRequest } from '../types.ts';
import type { Log } from '../notifications/ports.ts';
import type { SecretBox } from '../notifications/secret-box.ts';
import type { RelayersRepo } from '../relayers/ports.ts';
import type { Signer, SignerResolver, SignerRow, SignersRepo } from './ports.ts';

/** The reference's SignerResponse: a local signer shows no configuration (nothing of it is public). */
export interface SignerView {
  id: string;
  type: 'local';
  config: Record<string, never>;
}

/** POST /api/v1/signers after schema validation: the reference's `plain` type with a hex key. */
export interface CreateSignerInput {
  id?: string;
  type: string;
  config: { key: string };
}

export interface SignerService {
  list(query: PageRequest): Promise<Page<SignerView>>;
  get(id: string): Promise<SignerView>;
  create(input: CreateSignerInput): Promise<SignerView>;
  remove(id: string): Promise<void>;
  /** The signer for a network type (address derived from its key); throws a 400 naming the problem. */
  resolve(id: string, networkType: NetworkType): Promise<Signer>;
}

const toView = (row: SignerRow): SignerView => ({ id: row.id, type: 'local', config: {} });
const KEY = /^(0x)?[0-9a-fA-F]{64}$/;

export interface SignerServiceDeps {
  repo: SignersRepo;
  relayers: Pick<RelayersRepo, 'usingSigner'>;
  signers: readonly SignerConfig[];
  secrets: SecretBox;
  /** The signer adapters (src/signers/), by the config entry's type. */
  resolveSigner: SignerResolver;
  logger: Log;
}

export async function createSignerService(deps: SignerServiceDeps): Promise<SignerService> {
  const { repo, secrets, logger } = deps;
  const configured = new Map(deps.signers.map((s) => [s.id, s]));
  const now = new Date().toISOString();
  await repo.seed(deps.signers.map((s) => ({ id: s.id, type: 'local', config: {}, secret: null, source: 'config' as const, created_at: now, updated_at: now })));
  const deleted = (await repo.deletedIds()).filter((id) => configured.has(id));
  if (deleted.length) logger.warn({ signerIds: deleted }, 'config drift: these config signers were deleted through the API and stay deleted (the store wins)');

  const require = async (id: string) => {
    const row = await repo.get(id);
    if (!row) throw new NotFoundError('SIGNER_NOT_FOUND', { reason: `signer '${id}' not found` });
    return row;
  };
  const resolved = new Map<string, Signer>();

  return {
    async list({ page, per_page }) {
      const [rows, total] = await Promise.all([per_page === 0 ? [] : repo.list(per_page, (page - 1) * per_page), repo.count()]);
      return { items: rows.map(toView), pagination: { current_page: page, per_page, total_items: total } };
    },
    get: async (id) => toView(await require(id)),
    async create(input) {
      if (input.type !== 'plain') {
        throw new ValidationError(`'type': signer type '${input.type}' is not supported by Relaybox; use 'plain' with config.key (a 32-byte hex key), or a keystore in the config file`);
      }
      if (!KEY.test(input.config.key)) throw new ValidationError("'config.key' must be a 32-byte key in hex (64 hex digits, 0x optional)");
      const id = input.id ?? randomUUID();
      const at = new Date().toISOString();
      const key = input.config.key.replace(/^0x/, '');
      if (!(await repo.insert({ id, type: 'local', config: {}, secret: secrets.seal(key, `signer:${id}`), source: 'api', created_at: at, updated_at: at }))) {
        throw new ConflictError('SIGNER_EXISTS', { reason: `a signer with id '${id}' already exists` });
      }
      logger.info({ signerId: id }, 'signer created');
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
        const entry = row?.source === 'api' ? { id, type: 'local' as const, private_key: secrets.open(row!.secret ?? '', `signer:${id}`) } : configured.get(id);
        if (!entry) throw new Error(`signer '${id}' is in the store but no longer in the config file, which holds its key`);
        signer = await deps.resolveSigner(entry, networkType);
      } catch (err) {
        throw new ValidationError(`'signer_id': ${(err as Error).message}`);
      }
      resolved.set(cacheKey, signer);
      return signer;
    },
  };
}
