// /api/v1/api-keys: create (the secret shown once; within the creator's rights), list (the keys the caller may read),
// a key's permissions, delete.
import { Router } from 'express';
import { success } from '../../http/envelope.ts';
import { listScope, principalOf } from '../../http/auth.ts';
import { scopedPage } from '../scoped-list.ts';
import { validator } from '../../http/validate.ts';
import type { ApiKeyService, CreateApiKeyInput } from '../../domain/api-keys/service.ts';
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
    const { items, pagination } = await scopedPage(listScope(res, 'api_key'), query, () => service.list(query), (id) => service.get(id));
    res.json(success(items, { pagination }));
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

const example = { id: '5f0c3a9e-1b2c-4d5e-8f90-123456789abc', name: 'ci', permissions: ['relayer:all:execute'], allowed_origins: ['*'], created_at: '2026-01-01T12:00:00.000Z', rate_limit: null };

export const apiKeyRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/',
    summary: 'Create an API key',
    description:
      'The answer carries the secret in `value`: the only time it is shown (only its SHA-256 is stored). A stored key may grant only permissions it holds itself, and a `rate_limit` no higher than its own (403 otherwise); permissions and the route table: docs/security.md.',
    body: createApiKeyBody,
    status: 201,
    data: { ...apiKeyRecord, required: [...apiKeyRecord.required, 'value'], properties: { ...apiKeyRecord.properties, value: { type: 'string' } } },
    examples: { body: { name: 'ci', permissions: ['relayer:all:execute'] }, data: { ...example, value: 'rbk_…' } },
  },
  { method: 'get', path: '/', summary: 'List API keys (never their secrets); a scoped key sees the keys it may read', query: pageQuery, data: { type: 'array', items: apiKeyRecord }, paginated: true, examples: { data: [example] } },
  { method: 'get', path: '/:api_key_id/permissions', summary: "An API key's permissions", params: apiKeyIdParams, data: { type: 'array', items: { type: 'string' } }, errors: ['API_KEY_NOT_FOUND'] },
  { method: 'delete', path: '/:api_key_id', summary: 'Delete an API key', params: apiKeyIdParams, data: { type: 'string' }, errors: ['API_KEY_NOT_FOUND'], examples: { data: 'API key deleted successfully' } },
];
