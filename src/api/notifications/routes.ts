// /api/v1/notifications routes: validate, call the notification service, answer in the envelope.
import { Router } from 'express';
import { success } from '../../http/envelope.ts';
import { validator } from '../../http/validate.ts';
import type { CreateNotificationInput, NotificationService, PageQuery, UpdateNotificationInput } from '../../domain/notifications/service.ts';
import { createBody, deliveryParams, idParams, pageQuery, updateBody } from './schemas.ts';

type IdParams = { id: string };

export function createNotificationsRouter(service: NotificationService): Router {
  const createInput = validator<unknown, unknown, CreateNotificationInput>({ body: createBody });
  const listInput = validator<unknown, PageQuery, undefined>({ query: pageQuery });
  const oneInput = validator<IdParams, unknown, undefined>({ params: idParams });
  const updateInput = validator<IdParams, unknown, UpdateNotificationInput>({ params: idParams, body: updateBody });
  const deliveriesInput = validator<IdParams, PageQuery, undefined>({ params: idParams, query: pageQuery });
  const retryInput = validator<IdParams & { event_id: string }, unknown, undefined>({ params: deliveryParams });

  const router = Router();
  router.post('/', (req, res) => {
    const { body } = createInput(req);
    res.status(201).json(success(service.create(body)));
  });
  router.get('/', (req, res) => {
    const { items, pagination } = service.list(listInput(req).query);
    res.json(success(items, { pagination }));
  });
  router.get('/:id', (req, res) => {
    res.json(success(service.get(oneInput(req).params.id)));
  });
  router.patch('/:id', (req, res) => {
    const { params, body } = updateInput(req);
    res.json(success(service.update(params.id, body)));
  });
  router.delete('/:id', (req, res) => {
    res.json(success(service.remove(oneInput(req).params.id)));
  });
  router.get('/:id/deliveries', (req, res) => {
    const { params, query } = deliveriesInput(req);
    const { items, pagination } = service.listDeliveries(params.id, query);
    res.json(success(items, { pagination }));
  });
  router.post('/:id/deliveries/:event_id/retry', (req, res) => {
    const { params } = retryInput(req);
    res.json(success(service.retryDelivery(params.id, params.event_id)));
  });
  return router;
}
