// STUB (owned by the runtime work): /api/v1/plugins routes.
import { Router } from 'express';
import type { PluginService } from '../../domain/plugins/service.ts';

export function createPluginsRouter(_service: PluginService): Router {
  return Router();
}
