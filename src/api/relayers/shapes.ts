// Tells a client that sent the wrong request shape for the relayer's network which shape it needs.
import type { NetworkType } from '../../domain/types.ts';
import { ValidationError } from '../../errors.ts';

const SHAPES: Record<NetworkType, { name: string; keys: readonly string[] }> = {
  evm: {
    name: 'A',
    keys: ['value', 'to', 'data', 'gas_limit', 'gas_price', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'speed'],
  },
  solana: { name: 'B', keys: ['transaction', 'instructions'] },
  stellar: {
    name: 'C',
    keys: ['network', 'operations', 'transaction_xdr', 'source_account', 'memo', 'fee_bump', 'max_fee'],
  },
};

/**
 * When none of the body's fields belong to the relayer's shape but some belong to another one,
 * say so plainly; a mixed body is left to the schema, which names the stray field.
 */
export function checkShape(networkType: NetworkType, relayerId: string, body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const keys = Object.keys(body);
  const own = SHAPES[networkType];
  if (keys.some((k) => own.keys.includes(k))) return;
  const other = (Object.keys(SHAPES) as NetworkType[]).find(
    (t) => t !== networkType && keys.some((k) => SHAPES[t].keys.includes(k)),
  );
  if (!other) return;
  throw new ValidationError(
    `relayer '${relayerId}' is ${networkType} and takes request shape ${own.name} (${own.keys.join(', ')}); the body has shape ${SHAPES[other].name}, for ${other} relayers`,
  );
}
