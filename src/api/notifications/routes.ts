// STUB (owned by the notifications work): /api/v1/notifications routes.
import { Router } from 'express';
import type { NotificationService } from '../../domain/notifications/service.ts';

export function createNotificationsRouter(_service: NotificationService): Router {
  return Router();
}
