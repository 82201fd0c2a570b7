// The fingerprint of a relayer's config-owned fields: the store rewrites them only when it changes (see RelayersRepo.seed).
import { createHash } from 'node:crypto';
import type { RelayerSeed } from './ports.ts';

export type SeedFields = Omit<RelayerSeed, 'seed_hash' | 'paused' | 'notification_id' | 'initial_nonce'>;

export function seedHashOf(s: SeedFields): string {
  const fields = [
    s.id,
    s.name,
    s.network,
    s.network_type,
    s.signer_id,
    s.address,
    s.policies ?? null,
    s.custom_rpc_urls ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}
