// Every secret the store keeps, sealed under STORAGE_ENCRYPTION_KEY at start: webhook signing keys and the secret of
// every API-created signer, whatever its type. Plain ones are sealed (the key was set after they were stored); those
// sealed under STORAGE_ENCRYPTION_KEY_PREVIOUS are re-sealed (a rotation). One store transaction: all or nothing.
// API keys are stored as SHA-256 hashes and plugin KV is the plugins' own data: neither is sealed here.
import type { Store, Tx } from './ports.ts';
import type { Log } from './log.ts';
import type { SecretBox } from './secret-box.ts';

interface StoredSecret {
  /** How an operator finds it: `notification 'id'`, `signer 'id'`. */
  label: string;
  stored: string;
  /** The associated data it is sealed with. */
  owner: string;
  write(tx: Tx, stored: string, now: string): Promise<unknown>;
}

async function storedSecrets(tx: Tx): Promise<StoredSecret[]> {
  const notifications = (await tx.notifications.all()).filter((n) => n.signing_key !== null);
  const signers = await tx.signers.secrets();
  return [
    ...notifications.map((n) => ({
      label: `notification '${n.id}'`,
      stored: n.signing_key!,
      owner: n.id,
      write: (t: Tx, stored: string, now: string) => t.notifications.update(n.id, { signing_key: stored }, now),
    })),
    ...signers.map((s) => ({
      label: `signer '${s.id}'`,
      stored: s.secret,
      owner: `signer:${s.id}`,
      write: (t: Tx, stored: string) => t.signers.setSecret(s.id, stored),
    })),
  ];
}

/** Refuses the start naming what cannot be opened, never a secret: nothing would sign or deliver with it. */
function unreadable(labels: string[]): Error {
  const listed = labels.slice(0, 10).join(', ') + (labels.length > 10 ? `, and ${labels.length - 10} more` : '');
  return new Error(
    `STORAGE_ENCRYPTION_KEY does not open ${labels.length} stored secret(s) (${listed}): they were sealed with another key. ` +
      'Start with the key they were sealed with, or rotate: STORAGE_ENCRYPTION_KEY=<new key> with STORAGE_ENCRYPTION_KEY_PREVIOUS=<the old key> (docs/security.md)',
  );
}

/**
 * Seals (or re-seals) every stored secret under the current storage key, in one transaction; rejects, changing
 * nothing, when one of them opens with neither the current nor the previous key. Without a storage key: nothing to do
 * (the notification service reports sealed keys it cannot open).
 */
export async function sealSecretsAtRest(deps: { store: Store; secrets: SecretBox; logger: Log }): Promise<void> {
  const { store, secrets, logger } = deps;
  if (!secrets.sealing) return;
  const counts = await store.atomically(async (tx) => {
    const now = new Date().toISOString();
    const failed: string[] = [];
    let sealed = 0;
    let resealed = 0;
    for (const item of await storedSecrets(tx)) {
      let next: string | undefined;
      try {
        next = secrets.reseal(item.stored, item.owner);
      } catch {
        failed.push(item.label);
        continue;
      }
      if (next === undefined) continue;
      if (secrets.isSealed(item.stored)) resealed++;
      else sealed++;
      await item.write(tx, next, now);
    }
    if (failed.length > 0) throw unreadable(failed);
    return { sealed, resealed };
  });
  if (counts.sealed + counts.resealed > 0) {
    logger.info(
      counts,
      'stored secrets sealed under STORAGE_ENCRYPTION_KEY (sealed: were plain; resealed: were under STORAGE_ENCRYPTION_KEY_PREVIOUS)',
    );
  }
}
