// Every route the service mounts, grouped as app.ts mounts them, and the API reference built from them.
import { schemas } from '../validation/compile.ts';
import { relayerRouteDocs } from '../api/relayers/routes.ts';
import { evmBody, solanaBody, stellarBody, updateRelayerBody } from '../api/relayers/schemas.ts';
import { notificationRouteDocs } from '../api/notifications/routes.ts';
import { createBody, updateBody } from '../api/notifications/schemas.ts';
import {
  apiKeyRecord,
  deliveryRecord,
  networkRecord,
  notificationRecord,
  pluginRecord,
  relayerRecord,
  signerRecord,
  transactionRecord,
} from './records.ts';
import { signerRouteDocs } from '../api/signers/routes.ts';
import { networkRouteDocs } from '../api/networks/routes.ts';
import { apiKeyRouteDocs } from '../api/api-keys/routes.ts';
import { pluginCallBody, pluginRouteDocs } from './plugin-routes.ts';
import { serviceApiRouteDocs, serviceRootRouteDocs } from './service-routes.ts';
import { relayerInsightRouteDocs } from '../api/relayers/insight-routes.ts';
import { pluginCallsRouteDocs } from '../api/plugins/calls-routes.ts';
import { eventRouteDocs } from '../api/events/routes.ts';
import type { RouteGroup } from './route-doc.ts';
import { buildOpenApiDocument } from './document.ts';

/** Mount prefixes must match app.ts; test/operations/openapi.test.ts walks the mounted routes to prove it. */
export const ROUTE_GROUPS: readonly RouteGroup[] = [
  { prefix: '/api/v1', tag: 'service', auth: false, routes: serviceApiRouteDocs },
  { prefix: '', tag: 'service', auth: false, routes: serviceRootRouteDocs },
  { prefix: '/api/v1/relayers', tag: 'relayers', routes: relayerRouteDocs },
  { prefix: '/api/v1/relayers', tag: 'relayers', routes: relayerInsightRouteDocs },
  { prefix: '/api/v1/notifications', tag: 'notifications', routes: notificationRouteDocs },
  { prefix: '/api/v1/plugins', tag: 'plugins', envelope: 'plugin', routes: pluginRouteDocs },
  { prefix: '/api/v1/plugins', tag: 'plugins', envelope: 'plugin', routes: pluginCallsRouteDocs },
  { prefix: '/api/v1/events', tag: 'events', routes: eventRouteDocs },
  { prefix: '/api/v1/signers', tag: 'signers', routes: signerRouteDocs },
  { prefix: '/api/v1/networks', tag: 'networks', routes: networkRouteDocs },
  { prefix: '/api/v1/api-keys', tag: 'api-keys', routes: apiKeyRouteDocs },
];

// Listed once under components.schemas; wherever the same object appears in a route it becomes a $ref.
const COMPONENTS = {
  Relayer: relayerRecord,
  Transaction: transactionRecord,
  Notification: notificationRecord,
  Delivery: deliveryRecord,
  Plugin: pluginRecord,
  Signer: signerRecord,
  Network: networkRecord,
  ApiKey: apiKeyRecord,
  UpdateRelayerRequest: updateRelayerBody,
  EvmTransactionRequest: evmBody,
  SolanaTransactionRequest: solanaBody,
  StellarTransactionRequest: stellarBody,
  CreateNotificationRequest: createBody,
  UpdateNotificationRequest: updateBody,
  PluginCallRequest: pluginCallBody,
  U128: schemas.u128,
  Int64: schemas.int64,
};

const DESCRIPTION = `Relaybox: a self-hosted blockchain relayer. Every answer is one envelope:
\`{ "success": true, "data": ..., "error": null }\` (plus \`pagination\` on lists), or on failure
\`{ "success": false, "data": null, "error": "<precise reason>", "message": "<spec text>" }\`
(plugin routes put the text in \`error\`). Every route but health, ready, this document and /docs takes
\`Authorization: Bearer <API_KEY>\`. Error codes: docs/errors.md.`;

export function createApiDocument(version: string): object {
  return buildOpenApiDocument(ROUTE_GROUPS, {
    title: 'Relaybox API',
    version,
    description: DESCRIPTION,
    components: COMPONENTS,
  });
}
