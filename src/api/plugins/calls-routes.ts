// GET /api/v1/plugins/{id}/calls: a plugin's most recent calls (status, duration, result, logs, traces) and its last
// hour minute by minute, from the bounded in-memory log this instance keeps. Needs read on the plugin.
import { Router } from 'express';
import { success } from '../../http/envelope.ts';
import { validator } from '../../http/validate.ts';
import type { PluginCallLog } from '../../domain/live/plugin-calls.ts';
import type { RouteDoc } from '../../openapi/route-doc.ts';
import { minutesRecord, pluginCallRecord, sinceRecord } from '../../openapi/live-records.ts';
import { pluginIdParams } from './schemas.ts';

export function createPluginCallsRouter(deps: { calls: PluginCallLog; requirePlugin(id: string): unknown }): Router {
  const router = Router();
  const input = validator<{ plugin_id: string }, unknown, undefined>({ params: pluginIdParams });
  // In memory, this app's: counted from its start.
  const since = new Date().toISOString();
  router.get('/:plugin_id/calls', (req, res) => {
    const { plugin_id } = input(req).params;
    deps.requirePlugin(plugin_id);
    res.json(success({ calls: deps.calls.recent(plugin_id), minutes: deps.calls.minutes(plugin_id), since }));
  });
  return router;
}

export const pluginCallsRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/:plugin_id/calls',
    summary: "A plugin's recent calls and its last hour",
    description:
      "`calls`: the last 50 calls through this instance, newest first: outcome, duration, the result (JSON text) or the error, and the logs and traces the plugin returned (kept when it is configured with `emit_logs` / `emit_traces`, or with a failure); each text cut at 4000 characters. `minutes`: 60 points, oldest first, counting `calls` and `errors` with `duration_ms` p50/p99. In memory only: a restart starts empty. Results and logs of every caller's calls are shown to any key that may read the plugin.",
    params: pluginIdParams,
    data: {
      type: 'object',
      required: ['calls', 'minutes', 'since'],
      properties: { calls: { type: 'array', items: pluginCallRecord }, minutes: minutesRecord, since: sinceRecord },
    },
    errors: ['PLUGIN_NOT_FOUND'],
  },
];
