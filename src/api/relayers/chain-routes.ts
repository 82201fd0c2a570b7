// /api/v1/relayers/{relayer_id}/ status, balance, rpc, sign, sign-typed-data, sign-transaction: one operation each.
import type { Response, Router } from 'express';
import type { RelayerOperations } from '../../domain/types.ts';
import { success } from '../../http/envelope.ts';
import { authorizeSignerUse, principalOf } from '../../http/auth.ts';
import { methodNotAllowed } from '../../http/error-handler.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { rpcBody, signDataBody, signTransactionBody, signTypedDataBody } from './chain-schemas.ts';
import { idSchema } from './schemas.ts';

/** JSON-RPC methods a relayer answers by signing with its own key (a Solana relayer signs as fee payer). */
const SIGNING_RPC_METHODS = new Set(['signTransaction', 'signAndSendTransaction']);

export function mountChainRoutes(router: Router, ops: RelayerOperations): void {
  const id = (req: { params: Record<string, string> }) => req.params.relayer_id!;
  // A signature outside a transaction is the signer's, not only the relayer's: it needs the right to use the signer.
  const requireSigner = async (res: Response, relayerId: string) => {
    if (principalOf(res).kind === 'admin') return;
    authorizeSignerUse(res, (await ops.getRelayer(relayerId)).signer_id);
  };
  const rpcSigns = (body: unknown) =>
    body !== null && typeof body === 'object' && SIGNING_RPC_METHODS.has(String((body as { method?: unknown }).method));
  router.get('/:relayer_id/status', async (req, res) => {
    res.json(success(await ops.getRelayerStatus(id(req))));
  });
  router.get('/:relayer_id/balance', async (req, res) => {
    res.json(success(await ops.getRelayerBalance(id(req))));
  });
  // JSON-RPC in, JSON-RPC out (no envelope): node errors are JSON-RPC error objects with status 200.
  router.post('/:relayer_id/rpc', async (req, res) => {
    if (rpcSigns(req.body)) await requireSigner(res, id(req));
    res.json(await ops.rpc(id(req), req.body));
  });
  router.post('/:relayer_id/sign', async (req, res) => {
    await requireSigner(res, id(req));
    res.json(success(await ops.signData(id(req), req.body)));
  });
  router.post('/:relayer_id/sign-typed-data', async (req, res) => {
    await requireSigner(res, id(req));
    res.json(success(await ops.signTypedData(id(req), req.body)));
  });
  router.post('/:relayer_id/sign-transaction', async (req, res) => {
    await requireSigner(res, id(req));
    res.json(success(await ops.signTransaction(id(req), req.body)));
  });
  for (const path of ['status', 'balance', 'rpc', 'sign', 'sign-typed-data', 'sign-transaction'])
    router.all(`/:relayer_id/${path}`, methodNotAllowed);
}

const params = { type: 'object', required: ['relayer_id'], properties: { relayer_id: idSchema } } as const;
const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] } as const;
const statusCommon = {
  balance: { type: 'string', description: 'Smallest unit (wei, lamports, stroops), decimal.' },
  pending_transactions_count: { type: 'integer', description: 'Transactions pending, sent or submitted.' },
  last_confirmed_transaction_timestamp: nullableString,
  system_disabled: { type: 'boolean' },
  paused: { type: 'boolean' },
} as const;
const amount = { anyOf: [{ type: 'string', description: 'Smallest unit, decimal.' }, { type: 'null' }] } as const;
/** Ours, beside the reference's fields (docs/operating.md#relayer-status). */
const statusOurs = {
  disabled_reason: {
    anyOf: [
      { type: 'object', required: ['type', 'details'], properties: { type: { type: 'string' }, details: {} } },
      { type: 'null' },
    ],
  },
  rpc: {
    type: 'object',
    required: ['available', 'urls', 'urls_up'],
    properties: {
      available: { type: 'boolean' },
      urls: { type: 'integer' },
      urls_up: { type: 'integer' },
      reason: {
        type: 'string',
        description: 'While every RPC URL is down: the network, the last error, and that transactions wait.',
      },
      broadcast_warnings: {
        type: 'array',
        items: { type: 'string' },
        description:
          'RPC URLs that answer but accepted broadcasts their node never received: left out of broadcasts for a while.',
      },
    },
  },
  balance_watch: {
    anyOf: [
      {
        type: 'object',
        description:
          "The last balance check against min_balance (every minute and soon after the relayer's transactions move).",
        required: ['level', 'balance', 'min_balance', 'warning_balance', 'send_cost', 'sends_covered', 'checked_at'],
        properties: {
          level: { enum: ['ok', 'low', 'below_min_balance'] },
          balance: { type: 'string' },
          min_balance: amount,
          warning_balance: { ...amount, description: '2 × min_balance' },
          send_cost: amount,
          sends_covered: {
            anyOf: [
              {
                type: 'integer',
                description: 'Sends of send_cost the balance pays for before it falls under min_balance.',
              },
              { type: 'null' },
            ],
          },
          checked_at: { type: 'string' },
        },
      },
      { type: 'null' },
    ],
  },
} as const;
const statusOf = (networkType: string, extra: Record<string, object>) => ({
  type: 'object',
  required: ['network_type', ...Object.keys(statusCommon), ...Object.keys(extra)],
  properties: { network_type: { const: networkType }, ...statusCommon, ...statusOurs, ...extra },
});
const relayerStatus = {
  oneOf: [
    statusOf('evm', { nonce: { type: 'string' } }),
    statusOf('solana', {}),
    statusOf('stellar', { sequence_number: { type: 'string' } }),
  ],
};
const balance = {
  type: 'object',
  required: ['balance', 'unit'],
  properties: {
    balance: { type: 'integer', description: 'Exact, as a JSON integer (u128).' },
    unit: { enum: ['wei', 'lamport', 'stroop'] },
  },
} as const;
const hex = (n: number) => ({ type: 'string', pattern: `^[0-9a-f]{${n}}$` });
const evmSignature = {
  type: 'object',
  required: ['r', 's', 'v', 'sig'],
  properties: { r: hex(64), s: hex(64), v: { enum: [27, 28] }, sig: hex(130) },
} as const;
const signedTransaction = {
  oneOf: [
    {
      type: 'object',
      required: ['signedXdr', 'signature'],
      properties: { signedXdr: { type: 'string' }, signature: { type: 'string', description: 'base64' } },
    },
    {
      type: 'object',
      required: ['transaction', 'signature'],
      properties: {
        transaction: { type: 'string', description: 'base64' },
        signature: { type: 'string', description: 'base58' },
      },
    },
  ],
} as const;
const jsonRpcAnswer = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    result: {},
    error: {
      type: 'object',
      required: ['code', 'message', 'description'],
      properties: { code: { type: 'integer' }, message: { type: 'string' }, description: { type: 'string' }, data: {} },
    },
  },
} as const;
const exampleSignature = {
  r: '1f'.repeat(32),
  s: '2e'.repeat(32),
  v: 27,
  sig: `${'1f'.repeat(32)}${'2e'.repeat(32)}1b`,
};
const inactive = ['RELAYER_NOT_FOUND', 'RELAYER_PAUSED', 'RELAYER_DISABLED', 'NOT_SUPPORTED'] as const;

export const chainRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/:relayer_id/status',
    summary: "A relayer's status: balance, pending count, last confirmed, paused, nonce (EVM) or sequence (Stellar)",
    params,
    data: relayerStatus,
    errors: ['RELAYER_NOT_FOUND', 'CHAIN_UNAVAILABLE'],
    examples: {
      data: {
        network_type: 'evm',
        balance: '1000000000000000000',
        pending_transactions_count: 0,
        last_confirmed_transaction_timestamp: null,
        system_disabled: false,
        paused: false,
        nonce: '0',
      },
    },
  },
  {
    method: 'get',
    path: '/:relayer_id/balance',
    summary: "A relayer's balance on its network, in the smallest unit",
    params,
    data: balance,
    errors: ['RELAYER_NOT_FOUND', 'CHAIN_UNAVAILABLE'],
    examples: { data: { balance: 1000000000000000000, unit: 'wei' } },
  },
  {
    method: 'post',
    path: '/:relayer_id/rpc',
    summary: "A read-only JSON-RPC request through the relayer's network RPC",
    description:
      "Answers JSON-RPC, not the envelope: the node's result, or a JSON-RPC `error` (the node's own, `-32601` for a method that is not a read, `-33002` when no RPC URL answered). Writes go through the transaction routes. A Solana relayer also answers the reference's own methods `signTransaction` (as fee payer), `getSupportedTokens` and `getFeaturesEnabled`; its fee-token methods answer `UNSUPPORTED_METHOD`. A malformed request answers 400 in the envelope.",
    params,
    body: rpcBody,
    data: jsonRpcAnswer,
    produces: 'application/json',
    errors: ['RELAYER_NOT_FOUND', 'RELAYER_PAUSED', 'RELAYER_DISABLED'],
    examples: { body: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] } },
  },
  {
    method: 'post',
    path: '/:relayer_id/sign',
    summary: 'Sign an EIP-191 personal message (EVM)',
    params,
    body: signDataBody,
    data: evmSignature,
    errors: [...inactive],
    examples: { body: { message: 'hello' }, data: exampleSignature },
  },
  {
    method: 'post',
    path: '/:relayer_id/sign-typed-data',
    summary: 'Sign EIP-712 typed data from its domain separator and struct hash (EVM)',
    params,
    body: signTypedDataBody,
    data: evmSignature,
    errors: [...inactive],
    examples: {
      body: { domain_separator: `0x${'ab'.repeat(32)}`, hash_struct_message: `0x${'cd'.repeat(32)}` },
      data: exampleSignature,
    },
  },
  {
    method: 'post',
    path: '/:relayer_id/sign-transaction',
    summary: "Sign a transaction with the relayer's key without sending it (Stellar, Solana)",
    params,
    body: signTransactionBody,
    data: signedTransaction,
    errors: [...inactive, 'CHAIN_UNAVAILABLE'],
    examples: { body: { unsigned_xdr: 'AAAAAgAAAAD…' }, data: { signedXdr: 'AAAAAgAAAAD…', signature: 'base64…' } },
  },
];
