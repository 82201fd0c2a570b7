// STUB (owned by the transactions work): /api/v1/relayers routes.
import { Router } from 'express';
import type { RelayerOperations } from '../../domain/types.ts';

export function createRelayersRouter(_ops: RelayerOperations): Router {
  return Router();
}
