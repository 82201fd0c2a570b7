// GET /api/v1/openapi.json: a valid OpenAPI 3.1 document of every mounted route, built from the validation schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ERROR_CATALOGUE } from '../../src/errors.ts';
import { ROUTE_GROUPS } from '../../src/openapi/registry.ts';
import { buildOpenApiDocument, expressToTemplates, joinPath } from '../../src/openapi/document.ts';
import { toOpenApiSchema } from '../../src/openapi/schema-convert.ts';
import { evmBody as evmSchema, listTransactionsQuery } from '../../src/api/relayers/schemas.ts';
import { createBody } from '../../src/api/notifications/schemas.ts';
import { shared, type TestServer } from '../helper.ts';
import { buildWithRelayers, evmBody, stellarBody, txPath } from '../transactions/fixtures.ts';

/** The tests below that only read share one app (with the runtime: GET /api/v1/ready answers 200 only with it). */
const app = shared({ runtime: true });

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Doc = Record<string, any>;

async function fetchDocument(s: TestServer): Promise<Doc> {
  const res = await s.request('GET', '/api/v1/openapi.json', { auth: false });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return res.body as Doc;
}

/** Every route Express has mounted: [method, express path], walking nested routers by their mount paths. */
function mountedRoutes(stack: any[], prefix = ''): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods))
        out.push([method, prefix + (layer.route.path === '/' ? '' : layer.route.path)]);
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      out.push(...mountedRoutes(layer.handle.stack, prefix + mount));
    }
  }
  return out;
}

/** A validator for any schema inside the document, `$ref`s resolved against the document itself. */
function documentAjv(doc: Doc) {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ ...doc, $id: 'relaybox-openapi' });
  return (pointer: string) => {
    const validate = ajv.getSchema(`relaybox-openapi#${pointer}`);
    assert.ok(validate, `no schema at ${pointer}`);
    return validate;
  };
}

const pointerToken = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const responsePointer = (path: string, method: string, status: number) =>
  `/paths/${pointerToken(path)}/${method}/responses/${status}/content/application~1json/schema`;

test('the document is valid OpenAPI 3.1 and served without authentication', async () => {
  const s = await app();
  const doc = await fetchDocument(s);
  const validator = new Validator();
  const result = await validator.validate(doc);
  assert.equal(validator.version, '3.1');
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(doc.openapi, '3.1.0');
});

test('every mounted route is documented, and every documented route is mounted', async () => {
  const s = await app();
  const doc = await fetchDocument(s);
  const stack = (s.app.express as any).router.stack;
  const mounted = mountedRoutes(stack);
  assert.ok(mounted.length > 20, 'the router stack was walked');
  // The files of the docs page are not API operations.
  const assets = new Set(['/docs/initializer.js', '/docs/:asset']);
  const mountedOps = new Set<string>();
  for (const [method, path] of mounted) {
    if (assets.has(path)) continue;
    for (const template of expressToTemplates(path)) {
      const documented = doc.paths[template];
      assert.ok(documented, `${method.toUpperCase()} ${template} is mounted but not in the document`);
      // `all` catch-alls answer 405 next to real operations; a path served only by `all` needs one documented method.
      if (method === '_all') assert.ok(Object.keys(documented).length > 0, `${template} has no documented method`);
      else assert.ok(documented[method], `${method.toUpperCase()} ${template} is mounted but not in the document`);
      mountedOps.add(`${method} ${template}`);
    }
  }
  for (const [template, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const method of Object.keys(ops)) {
      assert.ok(
        mountedOps.has(`${method} ${template}`) || mountedOps.has(`_all ${template}`),
        `${method.toUpperCase()} ${template} is documented but not mounted`,
      );
    }
  }
  for (const op of [
    'post /api/v1/plugins/{plugin_id}/call',
    'get /api/v1/plugins/{plugin_id}/call',
    'get /api/v1/plugins',
    'get /api/v1/plugins/{plugin_id}',
  ]) {
    const [method, path] = op.split(' ') as [string, string];
    assert.ok(doc.paths[path]?.[method], `${op} is documented`);
  }
});

test('request schemas in the document are the validation schemas, converted: nothing is written twice', async () => {
  const s = await app();
  const doc = await fetchDocument(s);
  const noRefs = new Map<object, string>();
  const resolve = (schema: any) => (schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
  for (const group of ROUTE_GROUPS) {
    for (const route of group.routes) {
      for (const template of expressToTemplates(joinPath(group.prefix, route.path))) {
        const op = doc.paths[template][route.method];
        if (route.body) {
          const documented = resolve(op.requestBody.content['application/json'].schema);
          assert.deepEqual(
            Object.keys(documented),
            Object.keys(toOpenApiSchema(route.body, noRefs) as object),
            `${route.method} ${template} body`,
          );
        }
        const queryNames = op.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
        assert.deepEqual(
          queryNames,
          Object.keys((route.query as any)?.properties ?? {}),
          `${route.method} ${template} query`,
        );
      }
    }
  }
  // The same property lists, field by field, as the schemas the routes compile.
  assert.deepEqual(
    Object.keys(doc.components.schemas.EvmTransactionRequest.properties),
    Object.keys(evmSchema.properties),
  );
  assert.deepEqual(
    Object.keys(doc.components.schemas.CreateNotificationRequest.properties),
    Object.keys(createBody.properties),
  );
  assert.deepEqual(doc.components.schemas.CreateNotificationRequest.required, createBody.required);
  const listQuery = doc.paths['/api/v1/relayers/{relayer_id}/transactions'].get.parameters.filter(
    (p: any) => p.in === 'query',
  );
  assert.deepEqual(
    listQuery.map((p: any) => [p.name, p.schema.default]),
    Object.entries(listTransactionsQuery.properties).map(([k, v]) => [k, (v as any).default]),
  );
});

test('a field added to a route schema appears in the document without other changes', () => {
  const body = { type: 'object', required: ['url'], properties: { url: { type: 'string' } } } as Record<string, any>;
  const groups = [
    {
      prefix: '/api/v1/things',
      tag: 'things',
      routes: [{ method: 'post' as const, path: '/:thing_id', summary: 'Make a thing', body }],
    },
  ];
  const before = buildOpenApiDocument(groups, { title: 't', version: '1', description: 'd', components: {} }) as Doc;
  body.properties.colour = { enum: ['red', 'blue'] };
  const after = buildOpenApiDocument(groups, { title: 't', version: '1', description: 'd', components: {} }) as Doc;
  const schemaOf = (d: Doc) => d.paths['/api/v1/things/{thing_id}'].post.requestBody.content['application/json'].schema;
  assert.deepEqual(Object.keys(schemaOf(before).properties), ['url']);
  assert.deepEqual(schemaOf(after).properties.colour, { enum: ['red', 'blue'] });
  assert.deepEqual(after.paths['/api/v1/things/{thing_id}'].post.parameters, [
    { name: 'thing_id', in: 'path', required: true, schema: { type: 'string' } },
  ]);
});

test('our number formats become patterns, and ajv-only keywords stay as x- extensions', async () => {
  const s = await app();
  const doc = await fetchDocument(s);
  const formats: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (typeof o.format === 'string') formats.push(o.format);
      for (const [k, v] of Object.entries(o)) if (k !== 'examples' && k !== 'example') walk(v);
    }
  };
  walk(doc);
  assert.ok(
    !formats.includes('u128') && !formats.includes('int64'),
    `no digit-string formats left: ${formats.join(', ')}`,
  );
  const u128 = doc.components.schemas.U128;
  assert.deepEqual(u128.anyOf[1], {
    type: 'string',
    'x-format': 'u128',
    pattern: '^\\d{1,39}$',
    description: 'decimal string of an unsigned 128-bit integer',
  });
  assert.match(u128.description, /u128/);
  assert.equal(doc.components.schemas.EvmTransactionRequest.properties.value.$ref, '#/components/schemas/U128');
});

test('every route lists its error answers with the catalogue texts, and the envelope they come in', async () => {
  const s = await app();
  const doc = await fetchDocument(s);
  const texts = new Set<string>(Object.values(ERROR_CATALOGUE).map((e) => e.message.replace('{id}', 'my-id')));
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      assert.ok(op.responses['500'], `${method} ${path} documents 500`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (status === 'default' || Number(status) < 400) continue;
        const examples = Object.entries<any>(response.content['application/json'].examples);
        assert.ok(examples.length > 0, `${method} ${path} ${status} has examples`);
        for (const [code, example] of examples) {
          assert.equal(
            ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status,
            Number(status),
            `${code} under ${status}`,
          );
          const text = path.startsWith('/api/v1/plugins') ? example.value.error : example.value.message;
          if (!(path.startsWith('/api/v1/plugins') && code === 'VALIDATION_FAILED'))
            assert.ok(texts.has(text), `${method} ${path} ${code}: '${text}'`);
          assert.equal(example.value.success, false);
        }
      }
    }
  }
  const replace = doc.paths['/api/v1/relayers/{relayer_id}/transactions/{transaction_id}'].put.responses;
  assert.match(replace['404'].description, /`NOT_FOUND`: Not found/);
  for (const status of ['400', '401', '404', '429', '500']) assert.ok(replace[status], `replace documents ${status}`);
  assert.match(
    doc.paths['/api/v1/relayers/{relayer_id}/transactions'].get.responses['404'].description,
    /Relayer with ID \{id\} not found/,
  );
  assert.match(
    doc.paths['/api/v1/notifications'].post.responses['409'].description,
    /Notification with this ID already exists/,
  );
  assert.equal(
    doc.paths['/api/v1/notifications'].post.responses['201'].content['application/json'].schema.properties.data.$ref,
    '#/components/schemas/Notification',
  );
  const call = doc.paths['/api/v1/plugins/{plugin_id}/call'].post;
  assert.match(call.responses['404'].description, /Plugin with ID \{id\} not found/);
  assert.equal(
    call.responses['404'].content['application/json'].schema.$ref,
    '#/components/schemas/PluginRouteFailure',
  );
  assert.equal(call.responses.default.content['application/json'].schema.$ref, '#/components/schemas/PluginFailure');
  assert.deepEqual(call.requestBody.content['application/json'].example, { params: { hello: 'world' } });
  assert.equal(
    doc.paths['/api/v1/relayers'].get.responses['429'].headers['Retry-After'].$ref,
    '#/components/headers/Retry-After',
  );
});

test('the bearer scheme guards every route but the public ones, as the server does', async () => {
  const s = await app();
  const doc = await fetchDocument(s);
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
    type: 'http',
    scheme: 'bearer',
    description: doc.components.securitySchemes.bearerAuth.description,
  });
  const publicOps = ['get /api/v1/health', 'get /api/v1/ready', 'get /api/v1/openapi.json', 'get /docs'];
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const isPublic = publicOps.includes(`${method} ${path}`);
      assert.deepEqual(op.security, isPublic ? [] : [{ bearerAuth: [] }], `${method} ${path}`);
      assert.equal(Boolean(op.responses['401']), !isPublic, `${method} ${path} 401`);
    }
  }
  for (const op of publicOps) {
    const [method, path] = op.split(' ') as [string, string];
    const res = await s.request(method.toUpperCase(), path, { auth: false });
    assert.ok(res.status === 200, `${op} answers without a key (${res.status})`);
  }
  const metrics = await s.request('GET', '/metrics', { auth: false });
  assert.equal(metrics.status, 401);
});

test('every example in the document matches its own schema', async () => {
  const s = await app();
  const doc = await fetchDocument(s);
  const schemaAt = documentAjv(doc);
  let checked = 0;
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const body = op.requestBody?.content['application/json'];
      if (body?.example !== undefined) {
        const validate = schemaAt(
          `/paths/${pointerToken(path)}/${method}/requestBody/content/application~1json/schema`,
        );
        assert.ok(validate(body.example), `${method} ${path} body example: ${JSON.stringify(validate.errors)}`);
        checked++;
      }
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const media = response.content?.['application/json'];
        if (!media?.schema || (media.schema.type === 'object' && !media.schema.properties)) continue;
        const validate = schemaAt(
          `/paths/${pointerToken(path)}/${method}/responses/${status}/content/application~1json/schema`,
        );
        const examples =
          media.example !== undefined ? [media.example] : Object.values<any>(media.examples ?? {}).map((e) => e.value);
        for (const example of examples) {
          assert.ok(validate(example), `${method} ${path} ${status} example: ${JSON.stringify(validate.errors)}`);
          checked++;
        }
      }
    }
  }
  assert.ok(checked > 50, `${checked} examples checked`);
});

test('real answers match the documented response schemas', async (t) => {
  const s = await buildWithRelayers(t, { runtime: true });
  const doc = await fetchDocument(s);
  const schemaAt = documentAjv(doc);
  const check = async (
    method: string,
    url: string,
    template: string,
    options: { body?: unknown; status?: number } = {},
  ) => {
    const res = await s.request(method, url, { body: options.body });
    assert.equal(res.status, options.status ?? 200, `${method} ${url}: ${res.text}`);
    const validate = schemaAt(responsePointer(template, method.toLowerCase(), res.status));
    assert.ok(validate(res.body), `${method} ${url}: ${JSON.stringify(validate.errors)} in ${res.text}`);
    return res.body;
  };
  await check('GET', '/api/v1/relayers', '/api/v1/relayers');
  await check('GET', '/api/v1/relayers/evm', '/api/v1/relayers/{relayer_id}');
  await check('GET', '/api/v1/relayers/nope', '/api/v1/relayers/{relayer_id}', { status: 404 });
  const sent = await check('POST', txPath('evm'), '/api/v1/relayers/{relayer_id}/transactions', { body: evmBody() });
  await check('POST', txPath('stellar'), '/api/v1/relayers/{relayer_id}/transactions', { body: stellarBody() });
  await check('GET', txPath('evm'), '/api/v1/relayers/{relayer_id}/transactions');
  // A replacement bids 10% above what the relay actually used (it may have raised the request's prices to the chain's).
  const bump = (wei: string) => String((BigInt(wei) * 12n) / 10n);
  await check('PUT', txPath('evm', sent.data.id), '/api/v1/relayers/{relayer_id}/transactions/{transaction_id}', {
    body: evmBody({
      max_fee_per_gas: bump(sent.data.max_fee_per_gas),
      max_priority_fee_per_gas: bump(sent.data.max_priority_fee_per_gas),
    }),
  });
  await check('PUT', txPath('evm', 'missing'), '/api/v1/relayers/{relayer_id}/transactions/{transaction_id}', {
    body: evmBody(),
    status: 404,
  });
  await check('POST', '/api/v1/notifications', '/api/v1/notifications', {
    body: { id: 'doc-hook', url: 'https://example.com/hook' },
    status: 201,
  });
  await check('POST', '/api/v1/notifications', '/api/v1/notifications', {
    body: { id: 'doc-hook', url: 'https://example.com/hook' },
    status: 409,
  });
  await check('GET', '/api/v1/notifications/doc-hook/deliveries', '/api/v1/notifications/{id}/deliveries');
  await check('GET', '/api/v1/plugins', '/api/v1/plugins');
  await check('GET', '/api/v1/ready', '/api/v1/ready');
  const health = await s.request('GET', '/api/v1/health');
  assert.equal(health.text, 'OK');
  assert.ok(doc.paths['/api/v1/health'].get.responses['200'].content['text/plain'], 'health is documented as text');
  await check('GET', '/api/v1/relayers/evm/status', '/api/v1/relayers/{relayer_id}/status');
  await check('GET', '/api/v1/relayers/evm/balance', '/api/v1/relayers/{relayer_id}/balance');
  await check('POST', '/api/v1/relayers/evm/sign', '/api/v1/relayers/{relayer_id}/sign', {
    body: { message: 'hello' },
  });
  await check('POST', '/api/v1/relayers/evm/sign-typed-data', '/api/v1/relayers/{relayer_id}/sign-typed-data', {
    body: { domain_separator: 'ab'.repeat(32), hash_struct_message: 'cd'.repeat(32) },
  });
  await check('POST', '/api/v1/relayers/evm/rpc', '/api/v1/relayers/{relayer_id}/rpc', {
    body: { id: 1, method: 'eth_chainId' },
  });
  await check('POST', '/api/v1/relayers/evm/sign-transaction', '/api/v1/relayers/{relayer_id}/sign-transaction', {
    body: [1],
    status: 400,
  });
  await check('POST', '/api/v1/relayers/evm-paused/sign', '/api/v1/relayers/{relayer_id}/sign', {
    body: { message: 'x' },
    status: 403,
  });
});
