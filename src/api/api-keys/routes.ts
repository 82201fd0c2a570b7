// /api/v1/api-keys: create (the secret shown once; within the creator's rights), list (the keys the caller may read),
// a key's permissions, the calling key's own (`me`), delete.
import { Router } from 'express';
import { success } from '../../http/envelope.ts';
import { listScope, principalOf } from '../../http/auth.ts';
import { scopedPage } from '../scoped-list.ts';
import { validator } from '../../http/validate.ts';
import type { ApiKeyService, CreateApiKeyInput } from '../../domain/api-keys/service.ts';
import { abilities } from '../../domain/api-keys/permissions.ts';
import type { Principal } from '../../domain/api-keys/principal.ts';
import type { PageRequest } from '../../domain/types.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { apiKeyRecord } from '../../openapi/records.ts';
import { pageQuery } from '../paging.ts';
import { apiKeyIdParams, createApiKeyBody } from './schemas.ts';

type IdParams = { api_key_id: string };

export function createApiKeysRouter(service: ApiKeyService): Router {
  const listInput = validator<unknown, PageRequest, undefined>({ query: pageQuery });
  const oneInput = validator<IdParams, unknown, undefined>({ params: apiKeyIdParams });
  const createInput = validator<unknown, unknown, CreateApiKeyInput>({ body: createApiKeyBody });
  const router = Router();
  router.post('/', async (req, res) => {
    res.status(201).json(success(await service.create(createInput(req).body, principalOf(res))));
  });
  router.get('/', async (req, res) => {
    const { query } = listInput(req);
    const { items, pagination } = await scopedPage(
      listScope(res, 'api_key'),
      query,
      () => service.list(query),
      (id) => service.get(id),
    );
    res.json(success(items, { pagination }));
  });
  // Before `/:api_key_id/…`: key ids are UUIDs, so `me` is never one.
  router.get('/me', (_req, res) => {
    res.json(success(selfView(principalOf(res))));
  });
  router.get('/:api_key_id/permissions', async (req, res) => {
    res.json(success(await service.permissions(oneInput(req).params.api_key_id)));
  });
  router.delete('/:api_key_id', async (req, res) => {
    await service.remove(oneInput(req).params.api_key_id);
    res.json(success('API key deleted successfully'));
  });
  return router;
}

/** The bootstrap API_KEY holds every right: written as the one permission that grants them all. */
const ADMIN_PERMISSIONS = ['*:all:manage'];

/** The caller's own key as GET /api-keys/me answers it: never its secret. */
function selfView(p: Principal) {
  const permissions = p.kind === 'admin' ? ADMIN_PERMISSIONS : p.permissions;
  return {
    kind: p.kind,
    id: p.kind === 'admin' ? null : p.id,
    name: p.kind === 'admin' ? 'API_KEY' : p.name,
    permissions,
    can: abilities(permissions),
  };
}

const ids = { oneOf: [{ const: 'all' }, { type: 'array', items: { type: 'string' } }] } as const;
const actions = {
  type: 'object',
  required: ['read', 'execute', 'manage'],
  properties: { read: ids, execute: ids, manage: ids },
} as const;
const selfRecord = {
  type: 'object',
  required: ['kind', 'id', 'name', 'permissions', 'can'],
  properties: {
    kind: {
      enum: ['admin', 'key'],
      description: "'admin': the bootstrap API_KEY (every right); 'key': a key created through /api-keys",
    },
    id: { type: ['string', 'null'] },
    name: { type: 'string' },
    permissions: { type: 'array', items: { type: 'string' } },
    can: {
      type: 'object',
      description:
        "Per area and action, the ids this key may act on: 'all', or a list (empty: none). The same model the server checks (docs/security.md).",
      required: ['relayer', 'plugin', 'notification', 'signer', 'network', 'api_key', 'metrics'],
      properties: Object.fromEntries(
        ['relayer', 'plugin', 'notification', 'signer', 'network', 'api_key', 'metrics'].map((a) => [a, actions]),
      ),
    },
  },
} as const;

const example = {
  id: '5f0c3a9e-1b2c-4d5e-8f90-123456789abc',
  name: 'ci',
  permissions: ['relayer:all:execute'],
  allowed_origins: ['*'],
  created_at: '2026-01-01T12:00:00.000Z',
  rate_limit: null,
};

export const apiKeyRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/',
    summary: 'Create an API key',
    description:
      'The answer carries the secret in `value`: the only time it is shown (only its SHA-256 is stored). A stored key may grant only permissions it holds itself, and a `rate_limit` no higher than its own (403 otherwise); permissions and the route table: docs/security.md.',
    body: createApiKeyBody,
    status: 201,
    data: {
      ...apiKeyRecord,
      required: [...apiKeyRecord.required, 'value'],
      properties: { ...apiKeyRecord.properties, value: { type: 'string' } },
    },
    examples: { body: { name: 'ci', permissions: ['relayer:all:execute'] }, data: { ...example, value: 'rbk_…' } },
  },
  {
    method: 'get',
    path: '/',
    summary: 'List API keys (never their secrets); a scoped key sees the keys it may read',
    query: pageQuery,
    data: { type: 'array', items: apiKeyRecord },
    paginated: true,
    examples: { data: [example] },
  },
  {
    method: 'get',
    path: '/me',
    summary: "The calling key's own permissions",
    description:
      'Any key may call it (no permission needed): what it may read, execute and manage, per area. The operator console enables its buttons from it; the server still checks every call.',
    data: selfRecord,
    examples: {
      data: {
        kind: 'key',
        id: '5f0c3a9e-1b2c-4d5e-8f90-123456789abc',
        name: 'ops-read',
        permissions: ['relayer:all:read', 'plugin:echo:execute'],
        can: abilities(['relayer:all:read', 'plugin:echo:execute']),
      },
    },
  },
  {
    method: 'get',
    path: '/:api_key_id/permissions',
    summary: "An API key's permissions",
    params: apiKeyIdParams,
    data: { type: 'array', items: { type: 'string' } },
    errors: ['API_KEY_NOT_FOUND'],
  },
  {
    method: 'delete',
    path: '/:api_key_id',
    summary: 'Delete an API key',
    params: apiKeyIdParams,
    data: { type: 'string' },
    errors: ['API_KEY_NOT_FOUND'],
    examples: { data: 'API key deleted successfully' },
  },
];
