// /api/v1/plugins: list, describe, and call (POST, or GET when the plugin allows it) a plugin.
import { Router, type Request, type Response } from 'express';
import { AppError } from '../../errors.ts';
import { success } from '../../http/envelope.ts';
import { validator } from '../../http/validate.ts';
import { listScope } from '../../http/auth.ts';
import { scopedPage } from '../scoped-list.ts';
import type { PluginChanges, PluginService } from '../../domain/plugins/service.ts';
import type { PluginCallResult } from '../../domain/plugins/ports.ts';
import type { PageRequest } from '../../domain/types.ts';
import { pageQuery } from '../paging.ts';
import { pluginRouteChannel } from './diagnostics.ts';
import { PLUGIN_ID_PATTERN, pluginIdParams, updatePluginBody } from './schemas.ts';

/** Headers a plugin never sees: the caller's credentials. */
const HIDDEN_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** Adds one name's value to `grouped`, after the values it already has. */
function addValue(grouped: Record<string, string[]>, name: string, value: string): void {
  const list = grouped[name];
  if (list) list.push(value);
  else grouped[name] = [value];
}

// The groups below have no prototype: a `__proto__` header or query key stays a plain key (they only travel as JSON).

/** As `req.headersDistinct` (names lower-cased, every value kept), read once from the raw pairs without the copies. */
function headersOf(req: Request): Record<string, string[]> {
  const grouped: Record<string, string[]> = Object.create(null);
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HIDDEN_HEADERS.has(name)) addValue(grouped, name, raw[i + 1]!);
  }
  return grouped;
}

function queryOf(req: Request): Record<string, string[]> {
  const grouped: Record<string, string[]> = Object.create(null);
  const at = req.originalUrl.indexOf('?');
  if (at >= 0)
    for (const [name, value] of new URLSearchParams(req.originalUrl.slice(at + 1))) addValue(grouped, name, value);
  return grouped;
}

/** The body's `params`, or the whole body when it has no `params` key (reference behaviour). */
function paramsOf(body: unknown): unknown {
  if (body === undefined) return {};
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.hasOwn(body, 'params'))
    return (body as { params: unknown }).params;
  return body;
}

/**
 * The route handed to the plugin: the path after `/call`, else the first `route` query value (the
 * reference's rule; its client sends `?route=`), else empty.
 */
function routeOf(segments: string[] | undefined, query: Record<string, string[]>): string {
  if (segments?.length) return '/' + segments.join('/');
  return query.route?.[0] ?? '';
}

/** The plugin call route's path under /api/v1 (the app mounts it ahead of every other route: src/app.ts). */
export const PLUGIN_CALL_PATH = '/plugins/:plugin_id/call{/*route}';

/** The plugin call (POST, or GET when the plugin allows it): the id and method checked, the input read, the answer sent. */
export function createPluginCallHandler(service: PluginService): (req: Request, res: Response) => Promise<void> {
  /** The call up to its answer: the id and method checked, the input read, the plugin service called. */
  const answerOf = (req: Request, res: Response): Promise<PluginCallResult> => {
    // The id pattern is the whole validation here; the `*route` wildcard comes as its segments (Express 5).
    const { plugin_id, route } = req.params as { plugin_id: string; route?: string[] };
    if (!PLUGIN_ID_PATTERN.test(plugin_id)) throw new AppError('PLUGIN_NOT_FOUND', { params: { id: plugin_id } });
    if (req.method !== 'POST' && req.method !== 'GET')
      throw new AppError('METHOD_NOT_ALLOWED', {
        reason: `${req.method} is not supported on a plugin call; use POST (or GET when the plugin allows it)`,
      });
    const query = queryOf(req);
    return service.call(plugin_id, {
      params: paramsOf(req.body),
      headers: headersOf(req),
      route: routeOf(route, query),
      method: req.method,
      query,
      requestId: String(res.locals.requestId ?? ''),
    });
  };
  return async (req, res) => {
    // Traced only for a subscriber (bench/hop-probe.ts): otherwise no context is made.
    const out = await (pluginRouteChannel.hasSubscribers
      ? pluginRouteChannel.tracePromise(answerOf, { req, res }, undefined, req, res)
      : answerOf(req, res));
    // What res.type('application/json') sets, without its MIME lookup on every call.
    res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
    if (out.raw) {
      res.send(out.result);
      return;
    }
    // The result is already JSON text made inside the sandbox: splice it in rather than parse and re-encode.
    res.send(
      `{"success":true,"data":${out.result},"error":null${out.metadata ? `,"metadata":${JSON.stringify(out.metadata)}` : ''}}`,
    );
  };
}

export function createPluginsRouter(service: PluginService): Router {
  const router = Router();
  const input = validator<{ plugin_id: string }>({ params: pluginIdParams });
  const listInput = validator<unknown, PageRequest, undefined>({ query: pageQuery });
  const updateInput = validator<{ plugin_id: string }, unknown, PluginChanges>({
    params: pluginIdParams,
    body: updatePluginBody,
  });

  router.get('/', async (req, res) => {
    const { query } = listInput(req);
    const { items, pagination } = await scopedPage(
      listScope(res, 'plugin'),
      query,
      () => service.list(query),
      (id) => service.get(id),
    );
    res.json(success(items, { pagination }));
  });

  router.get('/:plugin_id', (req, res) => {
    const { plugin_id } = input(req).params;
    res.json(success(service.get(plugin_id)));
  });

  router.patch('/:plugin_id', async (req, res) => {
    const { plugin_id } = input(req).params;
    const current = service.get(plugin_id);
    const { body } = updateInput(req);
    // Nothing to change: the plugin as it is, and no stored change (which would count as drift from the config file).
    res.json(success(Object.keys(body).length === 0 ? current : await service.update(plugin_id, body)));
  });

  return router;
}
