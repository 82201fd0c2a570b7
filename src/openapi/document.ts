// Builds the OpenAPI 3.1 document from the route registry: paths, parameters, envelopes, error answers, security.
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.ts';
import type { RouteDoc, RouteGroup, Schema } from './route-doc.ts';
import { toOpenApiSchema, type Json, type SchemaObject } from './schema-convert.ts';
import { envelopeComponents, exampleReason } from './envelope-schemas.ts';

export interface DocumentOptions {
  title: string;
  version: string;
  description: string;
  /** Schemas listed once under components.schemas and referred to wherever the same object is used. */
  components: Record<string, Schema>;
}

const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * Expands an Express 5 path into OpenAPI templates: `:id` and `*rest` become `{id}` / `{rest}`,
 * and an optional group `{/*route}` yields the path with and without it.
 */
export function expressToTemplates(path: string): string[] {
  const open = path.indexOf('{');
  if (open >= 0) {
    const close = path.indexOf('}', open);
    const [before, inner, after] = [path.slice(0, open), path.slice(open + 1, close), path.slice(close + 1)];
    return [...expressToTemplates(before + after), ...expressToTemplates(before + inner + after)];
  }
  return [path.replace(/[:*](\w+)/g, '{$1}')];
}

export function joinPath(prefix: string, path: string): string {
  const joined = (prefix + (path === '/' ? '' : path)).replace(/\/+$/, '');
  return joined === '' ? '/' : joined;
}

/** Every documented path template, for route labels and coverage checks. */
export function routeTemplates(groups: readonly RouteGroup[]): string[] {
  return groups.flatMap((g) => g.routes.flatMap((r) => expressToTemplates(joinPath(g.prefix, r.path))));
}

function operationId(method: string, template: string): string {
  const words = template
    .replace(/^\/api\/v1/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function errorCodesOf(route: RouteDoc, auth: boolean): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (route.params || route.query || route.headers || route.body) codes.push('VALIDATION_FAILED');
  if (route.body) codes.push(...BODY_ERRORS);
  // A key created through /api/v1/api-keys may lack the permission (the API_KEY admin key never does).
  if (auth) codes.push('UNAUTHORIZED', 'FORBIDDEN');
  codes.push(...(route.errors ?? []));
  // Every authenticated route counts against the key's rate limit (app.ts: the key check, then the limit).
  if (auth) codes.push('RATE_LIMITED');
  codes.push('INTERNAL');
  return [...new Set(codes)];
}

function errorResponses(codes: ErrorCode[], envelope: 'record' | 'plugin'): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const texts = list.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].message}`);
    const examples = Object.fromEntries(
      list.map((code) => {
        const text = ERROR_CATALOGUE[code].message.replace('{id}', 'my-id');
        // Plugin routes keep the precise reason only for validation failures (see pluginRouteFailure).
        // 401 is the reference's body on every route (the reason is in WWW-Authenticate).
        const value: Json =
          code === 'UNAUTHORIZED'
            ? { success: false, code: 401, data: null, error: text, message: text }
            : envelope === 'plugin'
              ? {
                  success: false,
                  data: null,
                  error: code === 'VALIDATION_FAILED' ? (exampleReason(code) ?? text) : text,
                }
              : { success: false, data: null, error: exampleReason(code) ?? text, message: text };
        return [code, { summary: `${code}: ${text}`, value }];
      }),
    );
    const headers: Record<string, Json> = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
    if (RETRY_AFTER_STATUSES.has(status)) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    out[String(status)] = {
      description: texts.join('; '),
      headers,
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${envelope === 'plugin' ? 'PluginRouteFailure' : 'RecordFailure'}` },
          examples,
        },
      },
    };
  }
  return out;
}

function parameters(route: RouteDoc, template: string, convert: (s: unknown) => Json): Json[] {
  const out: Json[] = [];
  const inPath = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const props = (s: Schema | undefined) =>
    (s as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  for (const name of inPath) {
    const schema = props(route.params)[name];
    // A wildcard (`*route`) arrives as an array of segments; on the wire it is the rest of the path.
    const wildcard = route.path.includes(`*${name}`);
    out.push({
      name,
      in: 'path',
      required: true,
      schema: wildcard || schema === undefined ? { type: 'string' } : convert(schema),
      ...(wildcard ? { description: 'the rest of the path, handed to the plugin as `route`' } : {}),
    });
  }
  const required = new Set(((route.query as { required?: string[] } | undefined)?.required ?? []) as string[]);
  for (const [name, schema] of Object.entries(props(route.query))) {
    out.push({ name, in: 'query', required: required.has(name), schema: convert(schema) });
  }
  for (const [name, schema] of Object.entries(props(route.headers))) {
    const { description, ...rest } = schema as { description?: string };
    out.push({ name, in: 'header', required: false, schema: convert(rest), ...(description ? { description } : {}) });
  }
  return out;
}

function successResponse(route: RouteDoc, convert: (s: unknown) => Json): Json {
  const headers = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  if (route.produces) {
    // A raw JSON answer (no envelope): `data` then describes the whole body.
    const schema =
      route.produces === 'application/json'
        ? route.data
          ? convert(route.data)
          : { type: 'object' }
        : { type: 'string' };
    return { description: route.summary, headers, content: { [route.produces]: { schema } } };
  }
  const properties: SchemaObject = {
    success: { const: true },
    data: route.data ? convert(route.data) : {},
    error: { type: 'null' },
  };
  const required = ['success', 'data', 'error'];
  if (route.paginated) {
    properties.pagination = { $ref: '#/components/schemas/Pagination' };
    required.push('pagination');
  }
  properties.metadata = { $ref: '#/components/schemas/Metadata' };
  const media: SchemaObject = { schema: { type: 'object', required, properties } };
  if (route.examples?.data !== undefined) {
    const example: SchemaObject = { success: true, data: route.examples.data as Json, error: null };
    if (route.paginated)
      example.pagination = {
        current_page: 1,
        per_page: 10,
        total_items: Array.isArray(route.examples.data) ? route.examples.data.length : 1,
      };
    media.example = example;
  }
  return { description: route.summary, headers, content: { 'application/json': media } };
}

export function buildOpenApiDocument(groups: readonly RouteGroup[], options: DocumentOptions): SchemaObject {
  const named = new Map<object, string>(Object.entries(options.components).map(([name, schema]) => [schema, name]));
  const convert = (s: unknown) => toOpenApiSchema(s, named);
  const paths: Record<string, SchemaObject> = {};
  const tags: string[] = [];
  for (const group of groups) {
    if (!tags.includes(group.tag)) tags.push(group.tag);
    const envelope = group.envelope ?? 'record';
    for (const route of group.routes) {
      const auth = route.auth ?? group.auth ?? true;
      const templates = expressToTemplates(joinPath(group.prefix, route.path));
      for (const template of templates) {
        const operation: SchemaObject = {
          tags: [group.tag],
          summary: route.summary,
          operationId: operationId(route.method, template),
          security: auth ? [{ bearerAuth: [] }] : [],
          parameters: parameters(route, template, convert),
          responses: {
            [String(route.status ?? 200)]: successResponse(route, convert),
            ...errorResponses(errorCodesOf(route, auth), envelope),
          },
        };
        if (route.description) operation.description = route.description;
        if (route.body) {
          const media: SchemaObject = { schema: convert(route.body) };
          if (route.examples?.body !== undefined) media.example = route.examples.body as Json;
          operation.requestBody = { required: true, content: { 'application/json': media } };
        }
        if (route.pluginFailures) {
          (operation.responses as SchemaObject).default = {
            description:
              "The plugin's own failure: `data` holds `{ code, details }` and `error` the message; the status comes from the plugin or the runtime (see docs/plugins.md)",
            content: { 'application/json': { schema: { $ref: '#/components/schemas/PluginFailure' } } },
          };
        }
        (paths[template] ??= {})[route.method] = operation;
      }
    }
  }
  const schemas: SchemaObject = { ...envelopeComponents() };
  for (const [name, schema] of Object.entries(options.components))
    schemas[name] = toOpenApiSchema(schema, named, schema);
  return {
    openapi: '3.1.0',
    info: { title: options.title, version: options.version, description: options.description },
    servers: [{ url: '/', description: 'this server' }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'The API key (`API_KEY`), sent as `Authorization: Bearer <key>`.',
        },
      },
      headers: {
        'X-Request-Id': {
          description:
            'The request id: the one sent (when safe) or a generated UUID; it is in every log line of the request.',
          schema: { type: 'string' },
        },
        'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
      },
      schemas,
    },
  };
}
