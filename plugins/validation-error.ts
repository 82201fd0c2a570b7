// Example: fails the way the reference product's plugins do: 422 { code: 'VALIDATION_FAILED', details }.
import { pluginError, type PluginContext } from '@openzeppelin/relayer-sdk';

export const settings = { emit_logs: true };

export async function handler({ params }: PluginContext) {
  console.warn('validating input');
  if (typeof params?.email !== 'string' || !params.email.includes('@')) {
    throw pluginError('Validation failed', {
      code: 'VALIDATION_FAILED',
      status: 422,
      details: { field: 'email', reason: 'must be an e-mail address' },
    });
  }
  return { ok: true };
}
