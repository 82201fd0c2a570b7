// Hostile paths and headers: ids holding %2F or .., Authorization variants (case, spaces, empty, repeated). Each is a 4xx that writes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWithRelayers, evmBody, IN_FLIGHT, txPath } from '../transactions/fixtures.ts';
import { API_KEY, shared } from '../helper.ts';
import { assertRejected, rawRequest, storeCounts } from './support.ts';

/** The tests below only read, or check what a request changed against counts taken just before: they share one app. */
const app = shared(() => buildWithRelayers(undefined));

const AUTH: [string, string] = ['Authorization', `Bearer ${API_KEY}`];
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];
const HOSTILE_IDS = [
  'a%2Fb',
  '%2F',
  '..',
  '%2E%2E',
  '.%2E',
  'a%2F..%2F..%2Fb',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%E0%A4%A',
  '%',
];

test('relayer, transaction, notification and plugin ids holding %2F or .. answer a 4xx envelope and write nothing', async () => {
  const s = await app();
  const sent = await s.request('POST', txPath('evm'), { body: evmBody() });
  assert.equal(sent.status, 200);
  const before = storeCounts(s);
  const send = JSON.stringify(evmBody());
  for (const id of HOSTILE_IDS) {
    const requests: Array<[string, string, string?, boolean?]> = [
      ['GET', `/api/v1/relayers/${id}`],
      ['GET', `/api/v1/relayers/${id}/transactions`],
      ['POST', `/api/v1/relayers/${id}/transactions`, send],
      ['GET', `/api/v1/relayers/evm/transactions/${id}`],
      ['PUT', `/api/v1/relayers/evm/transactions/${id}`, send],
      ['DELETE', `/api/v1/relayers/evm/transactions/${id}`],
      ['PUT', `/api/v1/relayers/${id}/transactions/${sent.body.data.id}`, send],
      ['GET', `/api/v1/notifications/${id}`],
      ['PATCH', `/api/v1/notifications/${id}`, JSON.stringify({ url: 'http://127.0.0.1:9/x' })],
      ['DELETE', `/api/v1/notifications/${id}`],
      ['GET', `/api/v1/notifications/${id}/deliveries`],
      ['POST', `/api/v1/plugins/${id}/call`, JSON.stringify({ params: {} }), true],
    ];
    for (const [method, path, body, pluginRoute] of requests) {
      // Sent raw: fetch would resolve `..` and `%2E%2E` before the server saw them.
      const res = await rawRequest(s.url, method, path, body ? [AUTH, JSON_TYPE] : [AUTH], body);
      assertRejected(res, `${method} ${path}`, { pluginRoute });
    }
  }
  assert.deepEqual(storeCounts(s), before);
  // The transaction the traversal ids aimed around is untouched: still in flight (the devnet mines hourly), not canceled.
  const still = await s.request('GET', txPath('evm', sent.body.data.id));
  assert.ok(IN_FLIGHT.includes(still.body.data.status), still.body.data.status);
  assert.notEqual(still.body.data.is_canceled, true);
});

test('an unknown relayer id with a slash is named in the 404, not resolved as a path', async () => {
  const s = await app();
  const res = await rawRequest(s.url, 'GET', '/api/v1/relayers/evm%2F..%2Fevm/transactions', [AUTH]);
  assertRejected(res, 'slash id', { status: 404, message: 'Relayer with ID evm/../evm not found' });
  const dots = await rawRequest(s.url, 'GET', '/api/v1/relayers/evm/transactions/..', [AUTH]);
  assertRejected(dots, 'dot-dot transaction', {
    status: 404,
    message: 'Not found',
    error: /transaction '\.\.' not found/,
  });
});

test("'bearer' in any case and extra spaces are accepted (RFC 7235: the scheme is case-insensitive, 1*SP)", async () => {
  const s = await app();
  for (const header of [
    `bearer ${API_KEY}`,
    `BEARER ${API_KEY}`,
    `BeArEr ${API_KEY}`,
    `Bearer    ${API_KEY}`,
    `Bearer ${API_KEY}   `,
  ]) {
    const res = await rawRequest(s.url, 'GET', '/api/v1/relayers', [['Authorization', header]]);
    assert.equal(res.status, 200, JSON.stringify(header));
  }
});

test('an empty, malformed, repeated or wrong Authorization answers 401 in the envelope and writes nothing', async () => {
  const s = await app();
  const before = storeCounts(s);
  const send = JSON.stringify(evmBody());
  const cases: Array<[string, Array<[string, string]>, RegExp]> = [
    ['no header', [], /missing Authorization header/],
    ['empty token', [['Authorization', 'Bearer ']], /must be 'Bearer <token>'/],
    ['scheme only', [['Authorization', 'Bearer']], /must be 'Bearer <token>'/],
    ['empty header', [['Authorization', '']], /missing Authorization header|must be 'Bearer <token>'/],
    ['two tokens', [['Authorization', `Bearer ${API_KEY} ${API_KEY}`]], /must be 'Bearer <token>'/],
    ['tab separator', [['Authorization', `Bearer\t${API_KEY}`]], /must be 'Bearer <token>'/],
    [
      'other scheme',
      [['Authorization', `Basic ${Buffer.from(`x:${API_KEY}`).toString('base64')}`]],
      /must be 'Bearer <token>'/,
    ],
    ['token without scheme', [['Authorization', API_KEY]], /must be 'Bearer <token>'/],
    ['key with a suffix', [['Authorization', `Bearer ${API_KEY}x`]], /invalid API key/],
    ['key cut short', [['Authorization', `Bearer ${API_KEY.slice(0, -1)}`]], /invalid API key/],
    [
      'right key second',
      [
        ['Authorization', 'Bearer wrong'],
        ['Authorization', `Bearer ${API_KEY}`],
      ],
      /more than one Authorization header/,
    ],
    [
      'right key first',
      [
        ['Authorization', `Bearer ${API_KEY}`],
        ['authorization', 'Bearer wrong'],
      ],
      /more than one Authorization header/,
    ],
    [
      'right key twice',
      [
        ['Authorization', `Bearer ${API_KEY}`],
        ['Authorization', `Bearer ${API_KEY}`],
      ],
      /more than one Authorization header/,
    ],
  ];
  for (const [label, headers, reason] of cases) {
    for (const [method, path, body] of [
      ['POST', txPath('evm'), send],
      ['POST', '/api/v1/notifications', JSON.stringify({ url: 'http://127.0.0.1:9/x' })],
      ['GET', '/api/v1/relayers'],
    ] as const) {
      const res = await rawRequest(s.url, method, path, body ? [...headers, JSON_TYPE] : headers, body);
      // The reference's 401 body; the precise reason is in WWW-Authenticate (RFC 6750).
      assert.equal(res.status, 401, `${label} ${method} ${path}`);
      assert.deepEqual(
        res.body,
        { success: false, code: 401, data: null, error: 'Unauthorized', message: 'Unauthorized' },
        label,
      );
      assert.match(res.headers.get('www-authenticate') ?? '', reason, label);
    }
    const plugin = await rawRequest(
      s.url,
      'POST',
      '/api/v1/plugins/echo/call',
      [...headers, JSON_TYPE],
      '{"params":{}}',
    );
    assertRejected(plugin, `${label} plugin`, { status: 401, pluginRoute: true });
    assert.equal(plugin.body.error, 'Unauthorized');
  }
  assert.deepEqual(storeCounts(s), before);
});
