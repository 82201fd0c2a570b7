// Example: logs, sends a transaction through the relayer API and returns it; logs and traces show in `metadata`.
import { pluginError, Speed, type PluginContext } from '@openzeppelin/relayer-sdk';

export const settings = { emit_logs: true, emit_traces: true, timeout: 30 };

interface Params {
  relayerId?: string;
  to?: string;
  value?: number;
}

export async function handler({ api, params: raw }: PluginContext) {
  const params = raw as Params | undefined;
  const relayerId = params?.relayerId ?? 'sepolia-example';
  const to = params?.to ?? '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
  console.log(`sending ${params?.value ?? 1} wei to ${to} with relayer ${relayerId}`);
  const relayer = api.useRelayer(relayerId);
  try {
    const tx = await relayer.sendTransaction({ to, value: params?.value ?? 1, speed: Speed.FAST });
    console.info('transaction accepted', { id: tx.id, status: tx.status });
    return { transactionId: tx.id, status: tx.status, hash: tx.hash ?? null };
  } catch (err) {
    const e = err as { message: string; code?: string; status?: number };
    console.error('relayer refused the transaction:', e.message);
    throw pluginError(e.message, { code: e.code ?? 'SEND_FAILED', status: e.status ?? 502, details: { relayerId } });
  }
}
