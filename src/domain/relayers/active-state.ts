// The reference's active-state rule (validate_active_state): a paused or system-disabled relayer is refused (403).
import { AppError } from '../../errors.ts';
import type { RelayerRow } from './ports.ts';

export function requireActive(relayer: Pick<RelayerRow, 'paused' | 'system_disabled'>): void {
  if (relayer.paused) throw new AppError('RELAYER_PAUSED', { reason: 'Relayer paused' });
  if (relayer.system_disabled) throw new AppError('RELAYER_DISABLED', { reason: 'Relayer disabled' });
}
