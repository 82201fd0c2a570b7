// A signer's config split in two: what the API may show (stored in `signers.config`) and its secret fields (stored
// sealed, as one JSON string, in `signers.secret`); and joined again, secrets as `{ type: 'plain' }`, for its adapter.
import type { SignerConfig, SignerType } from '../../config/config.ts';
import { deletePath, getPath, setPath, SIGNER_SCHEMAS } from '../../config/signer-schemas.ts';

type Fields = Record<string, unknown>;

/** The config without its secret fields; a local signer shows nothing (its keystore path included), as the reference. */
export function publicConfig(type: SignerType, config: object | undefined): Fields {
  if (type === 'local' || !config) return {};
  const shown = structuredClone(config) as Fields;
  for (const field of SIGNER_SCHEMAS[type].secretFields) deletePath(shown, field);
  return shown;
}

/** The secret fields given (strings, by dot path), as stored before sealing. */
export function secretFields(type: SignerType, config: object): Record<string, string> {
  const found: Record<string, string> = {};
  for (const field of SIGNER_SCHEMAS[type].secretFields) {
    const value = getPath(config, field);
    if (typeof value === 'string') found[field] = value;
  }
  return found;
}

/** The config entry an adapter reads: the public fields, each secret put back as `{ type: 'plain', value }`. */
export function entryOf(
  id: string,
  type: Exclude<SignerType, 'local'>,
  shown: Fields,
  secrets: Record<string, string>,
): SignerConfig {
  const config = structuredClone(shown);
  for (const [field, value] of Object.entries(secrets)) setPath(config, field, { type: 'plain', value });
  return { id, type, config } as unknown as SignerConfig;
}
