// The API reference of the by-nonce lookup and the cancel-all-pending route (mounted in routes.ts).
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { transactionRecord } from '../../openapi/records.ts';
import { idSchema, nonceSchema } from './schemas.ts';

const relayerParams = { type: 'object', required: ['relayer_id'], properties: { relayer_id: idSchema } } as const;
const nonceParams = {
  type: 'object',
  required: ['relayer_id', 'nonce'],
  properties: { relayer_id: idSchema, nonce: nonceSchema },
} as const;

const ids = { type: 'array', items: { type: 'string' } } as const;
/** The reference's DeletePendingTransactionsResponse. */
const deletePendingResult = {
  type: 'object',
  required: ['queued_for_cancellation_transaction_ids', 'failed_to_queue_transaction_ids', 'total_processed'],
  properties: {
    queued_for_cancellation_transaction_ids: {
      ...ids,
      description: 'Cancel requested: each ends `canceled` (or `confirmed` if mined first).',
    },
    failed_to_queue_transaction_ids: {
      ...ids,
      description: 'Could not be canceled (e.g. already being canceled, or final by the time it was reached).',
    },
    total_processed: { type: 'integer', minimum: 0, description: 'Both lists together.' },
  },
} as const;

const exampleTx = {
  id: '6f1f0c3e-9a1f-4a52-9d0c-3b1f5e2a7c10',
  relayer_id: 'sepolia-example',
  status: 'submitted',
  status_reason: null,
  created_at: '2026-01-01T12:00:00.000Z',
  sent_at: '2026-01-01T12:00:01.000Z',
  confirmed_at: null,
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  value: '1',
  nonce: 5,
};

export const pendingRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/:relayer_id/transactions/by-nonce/:nonce',
    summary: 'Get a transaction by its nonce (EVM)',
    description:
      'Any status. Not found answers 404 with `Transaction with nonce {nonce} not found`; a Solana or Stellar relayer answers 501 `Nonce lookup only supported for EVM networks`, as the reference. A nonce that is not a u64 in decimal digits answers 400 (the reference answers 404).',
    params: nonceParams,
    data: transactionRecord,
    errors: ['RELAYER_NOT_FOUND', 'NOT_FOUND', 'NOT_IMPLEMENTED'],
    examples: { data: exampleTx },
  },
  {
    method: 'delete',
    path: '/:relayer_id/transactions/pending',
    summary: 'Cancel every pending, sent or submitted transaction of the relayer',
    description:
      'Each one through the same cancel as `DELETE …/transactions/{transaction_id}`, lowest nonce first. A paused or disabled relayer is refused (403); a Solana relayer answers 400 `Delete pending transactions not supported for Solana relayers`, as the reference. On Stellar, transactions the relayer has not yet sent are canceled (the reference cancels none there).',
    params: relayerParams,
    data: deletePendingResult,
    errors: ['RELAYER_NOT_FOUND', 'RELAYER_PAUSED', 'RELAYER_DISABLED', 'NOT_SUPPORTED'],
    examples: {
      data: {
        queued_for_cancellation_transaction_ids: [exampleTx.id],
        failed_to_queue_transaction_ids: [],
        total_processed: 1,
      },
    },
  },
];
