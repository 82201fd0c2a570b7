// The signer types a config file may name: the one list the schema, the start-up refusal and the docs follow.
// A new signer type is added here (and given a schema of its own in schema.ts).

export const SUPPORTED_SIGNER_TYPES = ['local'] as const;

export type SignerType = (typeof SUPPORTED_SIGNER_TYPES)[number];

/**
 * Refuses, before the schema sees them, signers of a type we do not have (the reference's `aws_kms`, `vault`, …): one
 * sentence naming the signer, its type and the types we support, rather than a schema error about a constant.
 */
export function checkSignerTypes(file: unknown): void {
  const signers = (file as { signers?: unknown } | null)?.signers;
  if (!Array.isArray(signers)) return;
  for (const s of signers) {
    if (s === null || typeof s !== 'object') continue;
    const { id, type } = s as { id?: unknown; type?: unknown };
    if (typeof type !== 'string' || (SUPPORTED_SIGNER_TYPES as readonly string[]).includes(type)) continue;
    const name = typeof id === 'string' ? id : '?';
    throw new Error(`signer '${name}': type '${type}' is not supported (supported: ${SUPPORTED_SIGNER_TYPES.join(', ')})`);
  }
}
