// /api/v1/notifications routes: validate, call the notification service, answer in the envelope.
import { Router } from 'express';
import { success } from '../../http/envelope.ts';
import { validator } from '../../http/validate.ts';
import { listScope } from '../../http/auth.ts';
import { scopedPage } from '../scoped-list.ts';
import type {
  CreateNotificationInput,
  NotificationService,
  UpdateNotificationInput,
} from '../../domain/notifications/service.ts';
import type { PageRequest } from '../../domain/types.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { deliveryRecord, notificationRecord } from '../../openapi/records.ts';
import { createBody, deliveryParams, idParams, updateBody } from './schemas.ts';
import { pageQuery } from '../paging.ts';

type IdParams = { id: string };

/** Refuses a webhook URL the guard does not allow (RPC_BLOCK_PRIVATE_IPS, metadata): VALIDATION_FAILED naming the field, host and rule. */
export type WebhookUrlCheck = (url: string, field: string) => Promise<void>;

export function createNotificationsRouter(
  service: NotificationService,
  checkUrl: WebhookUrlCheck = async () => {},
): Router {
  const createInput = validator<unknown, unknown, CreateNotificationInput>({ body: createBody });
  const listInput = validator<unknown, PageRequest, undefined>({ query: pageQuery });
  const oneInput = validator<IdParams, unknown, undefined>({ params: idParams });
  const updateInput = validator<IdParams, unknown, UpdateNotificationInput & { type?: 'webhook' }>({
    params: idParams,
    body: updateBody,
  });
  const deliveriesInput = validator<IdParams, PageRequest, undefined>({ params: idParams, query: pageQuery });
  const retryInput = validator<IdParams & { event_id: string }, unknown, undefined>({ params: deliveryParams });

  const router = Router();
  router.post('/', async (req, res) => {
    const { body } = createInput(req);
    await checkUrl(body.url, 'url');
    res.status(201).json(success(await service.create(body)));
  });
  router.get('/', async (req, res) => {
    const { query } = listInput(req);
    const { items, pagination } = await scopedPage(
      listScope(res, 'notification'),
      query,
      () => service.list(query),
      (id) => service.get(id),
    );
    res.json(success(items, { pagination }));
  });
  router.get('/:id', async (req, res) => {
    res.json(success(await service.get(oneInput(req).params.id)));
  });
  router.patch('/:id', async (req, res) => {
    const { params, body } = updateInput(req);
    const { type: _webhook, ...fields } = body;
    if (fields.url !== undefined) await checkUrl(fields.url, 'url');
    res.json(success(await service.update(params.id, fields)));
  });
  router.delete('/:id', async (req, res) => {
    await service.remove(oneInput(req).params.id);
    // The reference's answer: a sentence, not the record.
    res.json(success('Notification deleted successfully'));
  });
  router.get('/:id/deliveries', async (req, res) => {
    const { params, query } = deliveriesInput(req);
    const { items, pagination } = await service.listDeliveries(params.id, query);
    res.json(success(items, { pagination }));
  });
  router.post('/:id/test', async (req, res) => {
    res.status(201).json(success(await service.sendTest(oneInput(req).params.id)));
  });
  router.post('/:id/deliveries/:event_id/retry', async (req, res) => {
    const { params } = retryInput(req);
    res.json(success(await service.retryDelivery(params.id, params.event_id)));
  });
  return router;
}

const exampleNotification = { id: 'my-hook', type: 'webhook', url: 'https://example.com/hook', has_signing_key: true };
const exampleDelivery = {
  id: '0b7c4f0e-5d0e-4c4b-9a53-2f7d3f1a6f42',
  event: 'transaction_update',
  transaction_id: '6f1f0c3e-9a1f-4a52-9d0c-3b1f5e2a7c10',
  status: 'failed',
  attempts: 8,
  last_error: 'receiver answered HTTP 500',
  next_attempt_at: null,
  created_at: '2026-01-01T12:00:00.000Z',
  delivered_at: null,
};

/** The routes above, for the API reference: the same schema objects the validators compile. */
export const notificationRouteDocs: RouteDoc[] = [
  {
    method: 'post',
    path: '/',
    summary: 'Create a webhook notification',
    body: createBody,
    status: 201,
    data: notificationRecord,
    errors: ['NOTIFICATION_EXISTS'],
    examples: {
      body: { id: 'my-hook', url: 'https://example.com/hook', signing_key: 'a-signing-key-of-at-least-32-characters' },
      data: exampleNotification,
    },
  },
  {
    method: 'get',
    path: '/',
    summary: 'List notifications',
    query: pageQuery,
    data: { type: 'array', items: notificationRecord },
    paginated: true,
    examples: { data: [exampleNotification] },
  },
  {
    method: 'get',
    path: '/:id',
    summary: 'Get a notification',
    params: idParams,
    data: notificationRecord,
    errors: ['NOTIFICATION_NOT_FOUND'],
    examples: { data: exampleNotification },
  },
  {
    method: 'patch',
    path: '/:id',
    summary: 'Update a notification (url, signing key; an empty key removes it)',
    params: idParams,
    body: updateBody,
    data: notificationRecord,
    errors: ['NOTIFICATION_NOT_FOUND'],
    examples: {
      body: { url: 'https://example.com/new-hook' },
      data: { ...exampleNotification, url: 'https://example.com/new-hook' },
    },
  },
  {
    method: 'delete',
    path: '/:id',
    summary: 'Delete a notification',
    description:
      'Refused (400 `Bad Request`) while a relayer still points at it. Answers the text `Notification deleted successfully`, as the reference.',
    params: idParams,
    data: { type: 'string' },
    errors: ['NOTIFICATION_NOT_FOUND', 'BAD_REQUEST'],
    examples: { data: 'Notification deleted successfully' },
  },
  {
    method: 'get',
    path: '/:id/deliveries',
    summary: "A notification's webhook delivery log, newest first",
    params: idParams,
    query: pageQuery,
    data: { type: 'array', items: deliveryRecord },
    paginated: true,
    errors: ['NOTIFICATION_NOT_FOUND'],
    examples: { data: [exampleDelivery] },
  },
  {
    method: 'post',
    path: '/:id/test',
    summary: 'Send a test event to a notification',
    description:
      "Queues a `notification_test` event (`payload`: `payload_type`, `notification_id`, `message`), delivered like any event: signed with the notification's key, through the URL guard, retried, and shown in its delivery log. Answers the queued delivery; read its outcome from `GET /notifications/{id}/deliveries`.",
    params: idParams,
    status: 201,
    data: deliveryRecord,
    errors: ['NOTIFICATION_NOT_FOUND'],
    examples: {
      data: {
        ...exampleDelivery,
        event: 'notification_test',
        transaction_id: null,
        status: 'pending',
        attempts: 0,
        last_error: null,
        next_attempt_at: '2026-01-01T12:00:00.000Z',
      },
    },
  },
  {
    method: 'post',
    path: '/:id/deliveries/:event_id/retry',
    summary: 'Re-queue a failed delivery with a fresh set of attempts',
    params: deliveryParams,
    data: deliveryRecord,
    errors: ['NOTIFICATION_NOT_FOUND', 'NOT_FOUND', 'BAD_REQUEST'],
    examples: {
      data: { ...exampleDelivery, status: 'pending', attempts: 0, next_attempt_at: '2026-01-01T12:05:00.000Z' },
    },
  },
];
