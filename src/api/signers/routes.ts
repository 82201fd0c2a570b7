// /api/v1/signers: list, get, create (a raw key or a remote signer's config, secrets stored sealed), update (refused, as the reference), delete.
import { Router } from 'express';
import { AppError } from '../../errors.ts';
import { success } from '../../http/envelope.ts';
import { validator } from '../../http/validate.ts';
import { listScope } from '../../http/auth.ts';
import { scopedPage } from '../scoped-list.ts';
import type { CreateSignerInput, SignerService } from '../../domain/signers/service.ts';
import type { PageRequest } from '../../domain/types.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { signerRecord } from '../../openapi/records.ts';
import { pageQuery } from '../paging.ts';
import { createSignerBody, signerIdParams, updateSignerBody } from './schemas.ts';

type IdParams = { signer_id: string };

export function createSignersRouter(service: SignerService): Router {
  const listInput = validator<unknown, PageRequest, undefined>({ query: pageQuery });
  const oneInput = validator<IdParams, unknown, undefined>({ params: signerIdParams });
  const createInput = validator<unknown, unknown, CreateSignerInput>({ body: createSignerBody });
  const updateInput = validator<IdParams, unknown, unknown>({ params: signerIdParams, body: updateSignerBody });
  const router = Router();
  router.get('/', async (req, res) => {
    const { query } = listInput(req);
    const { items, pagination } = await scopedPage(
      listScope(res, 'signer'),
      query,
      () => service.list(query),
      (id) => service.get(id),
    );
    res.json(success(items, { pagination }));
  });
  router.post('/', async (req, res) => {
    res.status(201).json(success(await service.create(createInput(req).body)));
  });
  router.get('/:signer_id', async (req, res) => {
    res.json(success(await service.get(oneInput(req).params.signer_id)));
  });
  router.patch('/:signer_id', async (req, _res) => {
    const { params } = oneInput(req);
    await service.get(params.signer_id);
    updateInput(req);
    throw new AppError('BAD_REQUEST', {
      reason:
        'Signer updates are not allowed for security reasons. Please delete the existing signer and create a new one with the desired configuration.',
    });
  });
  router.delete('/:signer_id', async (req, res) => {
    await service.remove(oneInput(req).params.signer_id);
    res.json(success('Signer deleted successfully'));
  });
  return router;
}

const example = { id: 'local-signer', type: 'local', config: {} };

export const signerRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/',
    summary: 'List signers',
    query: pageQuery,
    data: { type: 'array', items: signerRecord },
    paginated: true,
    examples: { data: [example] },
  },
  {
    method: 'post',
    path: '/',
    summary: 'Create a signer: a raw key, or a remote signer (KMS, Vault, HSM) by its config',
    description:
      '`type: plain` with `config.key` (32 bytes of hex), or another signer type with its config as in docs/signers.md, each secret field a string. Keys and secret fields are stored encrypted when STORAGE_ENCRYPTION_KEY is set and never shown again; `config` in answers holds only the other fields. A type not offered by this build is refused with the supported list.',
    body: createSignerBody,
    status: 201,
    data: signerRecord,
    errors: ['SIGNER_EXISTS'],
    examples: {
      body: { id: 'api-signer', type: 'plain', config: { key: '0x' + '11'.repeat(32) } },
      data: { ...example, id: 'api-signer' },
    },
  },
  {
    method: 'get',
    path: '/:signer_id',
    summary: 'Get a signer',
    params: signerIdParams,
    data: signerRecord,
    errors: ['SIGNER_NOT_FOUND'],
    examples: { data: example },
  },
  {
    method: 'patch',
    path: '/:signer_id',
    summary: 'Update a signer (refused: delete it and create a new one, as the reference)',
    params: signerIdParams,
    body: updateSignerBody,
    data: signerRecord,
    errors: ['SIGNER_NOT_FOUND', 'BAD_REQUEST'],
  },
  {
    method: 'delete',
    path: '/:signer_id',
    summary: 'Delete a signer',
    description: 'Refused (400) while a relayer uses it. Answers the text `Signer deleted successfully`.',
    params: signerIdParams,
    data: { type: 'string' },
    errors: ['SIGNER_NOT_FOUND', 'BAD_REQUEST'],
    examples: { data: 'Signer deleted successfully' },
  },
];
