// The plugin routes for the API reference; the router itself belongs to the plugin runtime work (src/api/plugins).
import type { RouteDoc } from './route-doc.ts';
import { anyValue, pluginRecord } from './records.ts';
import { pluginIdParams, updatePluginBody } from '../api/plugins/schemas.ts';
import { pageQuery } from '../api/paging.ts';

/** What the call route reads from the body; the plugin validates its own parameters. */
export const pluginCallBody = {
  type: 'object',
  description: '`params` is handed to the plugin as is (any JSON). A body without a `params` key is handed over whole.',
  properties: { params: { description: 'the plugin parameters: any JSON value' } },
} as const;

const call = {
  path: '/:plugin_id/call{/*route}',
  params: pluginIdParams,
  data: anyValue,
  pluginFailures: true,
  errors: ['PLUGIN_NOT_FOUND', 'PLUGIN_BUSY', 'RUNTIME_UNAVAILABLE'],
  examples: { data: { hello: 'world' } },
} as const satisfies Partial<RouteDoc>;

export const pluginRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/',
    summary: 'List the plugins, their settings and state',
    query: pageQuery,
    data: { type: 'array', items: pluginRecord },
    paginated: true,
  },
  {
    method: 'patch',
    path: '/:plugin_id',
    summary: "Change a plugin's settings",
    description:
      "The reference's fields (`timeout`, `emit_logs`, `emit_traces`, `raw_response`, `allow_get_invocation`, `forward_logs`, `config`); null puts one back to the config file's. Applied at once and kept over restarts (the store wins over the config file).",
    params: pluginIdParams,
    body: updatePluginBody,
    data: pluginRecord,
    errors: ['PLUGIN_NOT_FOUND'],
    examples: { body: { timeout: 30, emit_logs: true } },
  },
  {
    method: 'get',
    path: '/:plugin_id',
    summary: 'Get a plugin',
    params: pluginIdParams,
    data: pluginRecord,
    errors: ['PLUGIN_NOT_FOUND'],
  },
  {
    ...call,
    method: 'post',
    summary: 'Call a plugin',
    description:
      "Runs the plugin in the sandbox. `data` is its result; `metadata.logs` / `metadata.traces` appear when the plugin is configured with `emit_logs` / `emit_traces`. A `raw_response` plugin answers its result without the envelope. The plugin's `route` is the path after `/call`, else the first `route` query value (what the reference's client sends). A body without Content-Type is read as JSON.",
    body: pluginCallBody,
    examples: { ...call.examples, body: { params: { hello: 'world' } } },
  },
  {
    ...call,
    method: 'get',
    summary: 'Call a plugin with GET (when it allows it)',
    description:
      "Only for plugins configured with `allow_get_invocation`; others answer 405 `GET requests are not enabled for this plugin. Set 'allow_get_invocation: true' in plugin configuration to enable.` (the reference's text). The plugin gets the query string; `?route=` sets its route when the path has none.",
    errors: [...call.errors, 'METHOD_NOT_ALLOWED'],
  },
];
