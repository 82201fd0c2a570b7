// /api/v1/relayers routes: each one calls exactly one RelayerOperations method and wraps the result.
import { Router } from 'express';
import type { RelayerOperations } from '../../domain/types.ts';
import { methodNotAllowed } from '../../http/error-handler.ts';
import { ValidationError } from '../../errors.ts';
import { chainRouteDocs, mountChainRoutes } from './chain-routes.ts';
import { success } from '../../http/envelope.ts';
import { authorizeSignerUse, listScope } from '../../http/auth.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { relayerRecord, transactionRecord } from '../../openapi/records.ts';
import {
  createRelayerBody,
  evmBody,
  idempotencyKeySchema,
  idSchema,
  listRelayersQuery,
  listTransactionsQuery,
  solanaBody,
  stellarBody,
  updateRelayerBody,
} from './schemas.ts';
import { pendingRouteDocs } from './pending-docs.ts';
import { mountSponsoredRoutes, sponsoredRouteDocs } from './sponsored.ts';

/** The Idempotency-Key header as sent (checked by the operation); Node would join repeated ones, which are ambiguous. */
function idempotencyKeyOf(rawHeaders: string[]): string | undefined {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === 'idempotency-key') values.push(rawHeaders[i + 1]!);
  if (values.length > 1) throw new ValidationError("header 'Idempotency-Key' must be given once");
  return values[0];
}

/** Express 5 matches these with or without a trailing slash (non-strict routing). */
export function createRelayersRouter(ops: RelayerOperations): Router {
  const router = Router();
  const p = (req: { params: Record<string, string> }) => req.params;
  // A relayer signs with its signer: naming one (create, or a change of signer) needs the right to use it.
  const signerNamed = (body: unknown): string | undefined => {
    const named = body !== null && typeof body === 'object' ? (body as { signer_id?: unknown }).signer_id : undefined;
    return typeof named === 'string' ? named : undefined;
  };
  // A key pool signs with every key it names (signer_ids, funding_signer_id): each needs the right to use it.
  const poolNamed = (body: unknown): string[] => {
    if (body === null || typeof body !== 'object') return [];
    const { signer_ids: named, funding_signer_id: funder } = body as {
      signer_ids?: unknown;
      funding_signer_id?: unknown;
    };
    const ids = Array.isArray(named) ? named : [];
    return [...ids, funder].filter((id): id is string => typeof id === 'string');
  };

  router.get('/', async (req, res) => {
    const page = await ops.listRelayers(req.query, listScope(res, 'relayer'));
    res.json(success(page.items, { pagination: page.pagination }));
  });
  router.post('/', async (req, res) => {
    const signer = signerNamed(req.body);
    if (signer !== undefined) authorizeSignerUse(res, signer);
    for (const id of poolNamed(req.body)) authorizeSignerUse(res, id);
    res.status(201).json(success(await ops.createRelayer(req.body)));
  });
  router.all('/', methodNotAllowed);

  router.get('/:relayer_id', async (req, res) => {
    res.json(success(await ops.getRelayer(p(req).relayer_id!)));
  });
  router.patch('/:relayer_id', async (req, res) => {
    const signer = signerNamed(req.body);
    if (signer !== undefined) authorizeSignerUse(res, signer);
    for (const id of poolNamed(req.body)) authorizeSignerUse(res, id);
    res.json(success(await ops.updateRelayer(p(req).relayer_id!, req.body)));
  });
  router.delete('/:relayer_id', async (req, res) => {
    await ops.deleteRelayer(p(req).relayer_id!);
    res.json(success('Relayer deleted successfully'));
  });
  router.all('/:relayer_id', methodNotAllowed);

  mountChainRoutes(router, ops);

  router.get('/:relayer_id/transactions', async (req, res) => {
    const page = await ops.listTransactions(p(req).relayer_id!, req.query);
    res.json(success(page.items, { pagination: page.pagination }));
  });
  router.post('/:relayer_id/transactions', async (req, res) => {
    const sent = await ops.sendTransaction(p(req).relayer_id!, req.body, idempotencyKeyOf(req.rawHeaders));
    if (sent.replayed) res.set('Idempotent-Replayed', 'true');
    res.json(success(sent.record));
  });
  router.all('/:relayer_id/transactions', methodNotAllowed);

  // Before the `:transaction_id` routes: `pending` and `by-nonce` are never taken for a transaction id.
  router.get('/:relayer_id/transactions/by-nonce/:nonce', async (req, res) => {
    res.json(success(await ops.getTransactionByNonce(p(req).relayer_id!, p(req).nonce!)));
  });
  router.all('/:relayer_id/transactions/by-nonce/:nonce', methodNotAllowed);
  mountSponsoredRoutes(router, ops);
  router.delete('/:relayer_id/transactions/pending', async (req, res) => {
    res.json(success(await ops.deletePendingTransactions(p(req).relayer_id!)));
  });

  router.get('/:relayer_id/transactions/:transaction_id', async (req, res) => {
    res.json(success(await ops.getTransaction(p(req).relayer_id!, p(req).transaction_id!)));
  });
  router.put('/:relayer_id/transactions/:transaction_id', async (req, res) => {
    res.json(success(await ops.replaceTransaction(p(req).relayer_id!, p(req).transaction_id!, req.body)));
  });
  router.delete('/:relayer_id/transactions/:transaction_id', async (req, res) => {
    res.json(success(await ops.cancelTransaction(p(req).relayer_id!, p(req).transaction_id!)));
  });
  router.all('/:relayer_id/transactions/:transaction_id', methodNotAllowed);

  return router;
}

const relayerParams = { type: 'object', required: ['relayer_id'], properties: { relayer_id: idSchema } } as const;
const transactionParams = {
  type: 'object',
  required: ['relayer_id', 'transaction_id'],
  properties: { relayer_id: idSchema, transaction_id: idSchema },
} as const;
const transactionBody = {
  description:
    "The shape is chosen by the relayer's network: A for EVM, B for Solana, C for Stellar. An optional field sent as null counts as absent.",
  oneOf: [evmBody, solanaBody, stellarBody],
} as const;
const exampleRelayer = {
  id: 'sepolia-example',
  name: 'Sepolia example',
  network: 'sepolia',
  network_type: 'evm',
  paused: false,
  signer_id: 'local-signer',
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  notification_id: null,
  policies: { min_balance: 0 },
  custom_rpc_urls: null,
  system_disabled: false,
  disabled_reason: null,
};
const exampleTransaction = {
  id: '6f1f0c3e-9a1f-4a52-9d0c-3b1f5e2a7c10',
  relayer_id: 'sepolia-example',
  status: 'pending',
  status_reason: null,
  created_at: '2026-01-01T12:00:00.000Z',
  sent_at: null,
  confirmed_at: null,
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  value: '1000000000000000000001',
  nonce: 0,
};
const exampleSend = { to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', value: 1, speed: 'fast' };

/** The routes above, for the API reference: the schemas are the ones operations.ts compiles. */
export const relayerRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/',
    summary: 'List relayers',
    query: listRelayersQuery,
    data: { type: 'array', items: relayerRecord },
    paginated: true,
    examples: { data: [exampleRelayer] },
  },
  {
    method: 'post',
    path: '/',
    summary: 'Create a relayer',
    description:
      'Its signer, network and notification must exist; `policies` follow the network type. Stored: it survives restarts. A stored key needs `relayer:all:manage` and the right to use the signer (`signer:<signer_id>:execute`).',
    body: createRelayerBody,
    status: 201,
    data: relayerRecord,
    errors: ['RELAYER_EXISTS', 'SIGNER_NOT_FOUND'],
    examples: {
      body: {
        id: 'sepolia-example',
        name: 'Sepolia example',
        network: 'sepolia',
        network_type: 'evm',
        paused: false,
        signer_id: 'local-signer',
        policies: { min_balance: 0 },
      },
      data: exampleRelayer,
    },
  },
  {
    method: 'delete',
    path: '/:relayer_id',
    summary: 'Delete a relayer',
    description:
      'Refused (400) while it has pending, sent or submitted transactions. Answers the text `Relayer deleted successfully`.',
    params: relayerParams,
    data: { type: 'string' },
    errors: ['RELAYER_NOT_FOUND', 'BAD_REQUEST'],
    examples: { data: 'Relayer deleted successfully' },
  },
  {
    method: 'get',
    path: '/:relayer_id',
    summary: 'Get a relayer',
    params: relayerParams,
    data: relayerRecord,
    errors: ['RELAYER_NOT_FOUND'],
    examples: { data: exampleRelayer },
  },
  {
    method: 'patch',
    path: '/:relayer_id',
    summary: 'Update a relayer (name, pause, notification, policies, custom RPC URLs)',
    params: relayerParams,
    body: updateRelayerBody,
    data: relayerRecord,
    errors: ['RELAYER_NOT_FOUND'],
    examples: { body: { notification_id: 'my-hook' }, data: { ...exampleRelayer, notification_id: 'my-hook' } },
  },
  ...chainRouteDocs,
  ...pendingRouteDocs,
  ...sponsoredRouteDocs,
  {
    method: 'get',
    path: '/:relayer_id/transactions',
    summary: "List a relayer's transactions, newest first",
    params: relayerParams,
    query: listTransactionsQuery,
    data: { type: 'array', items: transactionRecord },
    paginated: true,
    errors: ['RELAYER_NOT_FOUND'],
    examples: { data: [exampleTransaction] },
  },
  {
    method: 'post',
    path: '/:relayer_id/transactions',
    summary: 'Send a transaction',
    description:
      'With an `Idempotency-Key` header, a retry is safe: the same key with the same request (compared after validation, so key order and whitespace do not matter) answers the transaction the first one created, as it is now, with the header `Idempotent-Replayed: true`, for at least 24 hours, across restarts and instances; concurrent requests with one key wait for the first. The same key with another request answers 409. Keys are per relayer.',
    params: relayerParams,
    headers: {
      type: 'object',
      properties: {
        'Idempotency-Key': {
          ...idempotencyKeySchema,
          description:
            'Sends once per key and request on this relayer (see the description); 1 to 255 printable ASCII characters, given once.',
        },
      },
    },
    body: transactionBody,
    data: transactionRecord,
    errors: ['RELAYER_NOT_FOUND', 'IDEMPOTENCY_KEY_REUSED'],
    examples: { body: exampleSend, data: exampleTransaction },
  },
  {
    method: 'get',
    path: '/:relayer_id/transactions/:transaction_id',
    summary: 'Get a transaction',
    params: transactionParams,
    data: transactionRecord,
    errors: ['RELAYER_NOT_FOUND', 'NOT_FOUND'],
    examples: { data: exampleTransaction },
  },
  {
    method: 'put',
    path: '/:relayer_id/transactions/:transaction_id',
    summary: 'Replace a transaction',
    description:
      'Same id and nonce, fees bumped, re-signed; pending, sent and submitted transactions only. An unknown relayer answers `Not found` here, as the spec asks.',
    params: transactionParams,
    body: transactionBody,
    data: transactionRecord,
    errors: ['NOT_FOUND'],
    examples: { body: { ...exampleSend, speed: 'fastest' }, data: exampleTransaction },
  },
  {
    method: 'delete',
    path: '/:relayer_id/transactions/:transaction_id',
    summary: 'Cancel a pending transaction',
    params: transactionParams,
    data: transactionRecord,
    errors: ['RELAYER_NOT_FOUND', 'NOT_FOUND'],
    examples: { data: { ...exampleTransaction, status: 'canceled' } },
  },
];
