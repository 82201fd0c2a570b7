// /api/v1/relayers routes: each one calls exactly one RelayerOperations method and wraps the result.
import { Router, type RequestHandler } from 'express';
import type { RelayerOperations } from '../../domain/types.ts';
import { AppError } from '../../errors.ts';
import { success } from '../../http/envelope.ts';

const methodNotAllowed: RequestHandler = (req, _res, next) => {
  next(new AppError('METHOD_NOT_ALLOWED', { reason: `${req.method} is not supported on ${req.baseUrl}${req.path}` }));
};

/** Express 5 matches these with or without a trailing slash (non-strict routing). */
export function createRelayersRouter(ops: RelayerOperations): Router {
  const router = Router();
  const p = (req: { params: Record<string, string> }) => req.params;

  router.get('/', async (req, res) => {
    const page = await ops.listRelayers(req.query);
    res.json(success(page.items, { pagination: page.pagination }));
  });
  router.all('/', methodNotAllowed);

  router.get('/:relayer_id', async (req, res) => {
    res.json(success(await ops.getRelayer(p(req).relayer_id!)));
  });
  router.patch('/:relayer_id', async (req, res) => {
    res.json(success(await ops.updateRelayer(p(req).relayer_id!, req.body)));
  });
  router.all('/:relayer_id', methodNotAllowed);

  router.get('/:relayer_id/transactions', async (req, res) => {
    const page = await ops.listTransactions(p(req).relayer_id!, req.query);
    res.json(success(page.items, { pagination: page.pagination }));
  });
  router.post('/:relayer_id/transactions', async (req, res) => {
    res.json(success(await ops.sendTransaction(p(req).relayer_id!, req.body)));
  });
  router.all('/:relayer_id/transactions', methodNotAllowed);

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
