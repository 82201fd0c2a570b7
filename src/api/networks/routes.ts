// /api/v1/networks: list, get, and change a network's RPC URLs at run time (stored; the store wins over the config).
import { Router } from 'express';
import { success } from '../../http/envelope.ts';
import { validator } from '../../http/validate.ts';
import { listScope } from '../../http/auth.ts';
import { scopedPage } from '../scoped-list.ts';
import type { NetworkService } from '../../domain/networks/service.ts';
import { normalizeRpcUrls } from '../../domain/relayers/seeding.ts';
import type { PageRequest } from '../../domain/types.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { networkRecord } from '../../openapi/records.ts';
import { pageQuery } from '../paging.ts';
import { networkIdParams, updateNetworkBody } from './schemas.ts';

type IdParams = { network_id: string };
type UpdateBody = { rpc_urls: Array<string | { url: string; weight?: number }> };

/** Refuses RPC URLs the guard does not allow (RPC_ALLOWED_HOSTS, RPC_BLOCK_PRIVATE_IPS): VALIDATION_FAILED naming the host and the rule. */
export type RpcUrlCheck = (urls: ReadonlyArray<{ url: string }>, field: string) => Promise<void>;

export function createNetworksRouter(service: NetworkService, checkRpcUrls: RpcUrlCheck = async () => {}): Router {
  const listInput = validator<unknown, PageRequest, undefined>({ query: pageQuery });
  const oneInput = validator<IdParams, unknown, undefined>({ params: networkIdParams });
  const updateInput = validator<IdParams, unknown, UpdateBody>({ params: networkIdParams, body: updateNetworkBody });
  const router = Router();
  router.get('/', async (req, res) => {
    const { query } = listInput(req);
    const { items, pagination } = await scopedPage(
      listScope(res, 'network'),
      query,
      () => service.list(query),
      (id) => service.get(id),
    );
    res.json(success(items, { pagination }));
  });
  router.get('/:network_id', (req, res) => {
    res.json(success(service.get(oneInput(req).params.network_id)));
  });
  router.patch('/:network_id', async (req, res) => {
    const { network_id } = oneInput(req).params;
    service.get(network_id);
    const { body } = updateInput(req);
    const urls = normalizeRpcUrls(body.rpc_urls)!;
    await checkRpcUrls(urls, 'rpc_urls');
    res.json(success(await service.updateRpcUrls(network_id, urls)));
  });
  return router;
}

const example = {
  id: 'evm:sepolia',
  name: 'sepolia',
  network_type: 'evm',
  rpc_urls: [{ url: 'https://sepolia.drpc.org', weight: 100 }],
  chain_id: 11155111,
  symbol: 'ETH',
};

export const networkRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/',
    summary: 'List networks',
    query: pageQuery,
    data: { type: 'array', items: networkRecord },
    paginated: true,
    examples: { data: [example] },
  },
  {
    method: 'get',
    path: '/:network_id',
    summary: 'Get a network (`evm:sepolia`)',
    params: networkIdParams,
    data: networkRecord,
    errors: ['NETWORK_NOT_FOUND'],
    examples: { data: example },
  },
  {
    method: 'patch',
    path: '/:network_id',
    summary: "Change a network's RPC URLs",
    description:
      'Takes effect at once (a new RPC pool) and survives restarts: the store wins over the config file, and the difference is logged at start.',
    params: networkIdParams,
    body: updateNetworkBody,
    data: networkRecord,
    errors: ['NETWORK_NOT_FOUND'],
    examples: { body: { rpc_urls: ['https://sepolia.drpc.org'] }, data: example },
  },
];
