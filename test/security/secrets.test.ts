// Secrets stay secret: the API key is compared in constant time, and no key reaches a log line or a response.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { API_KEY, request, type TestServer } from '../helper.ts';
import { startService } from '../faults/support.ts';
import { buildWithRelayers, EVM_KEY, EVM_KEY_2, evmBody, testConfig, txPath } from '../transactions/fixtures.ts';
import { rawRequest } from './support.ts';

const CONFIG_SIGNING_KEY = 'whsec-config-file-key-0123456789abcdefghij';
const API_SIGNING_KEY = 'whsec-created-by-api-key-9876543210zyxwvuts';

/** Every form in which a secret could show up: as given, and hex keys without their 0x. */
function forms(secrets: string[]): string[] {
  return secrets.flatMap((s) => (s.startsWith('0x') ? [s, s.slice(2)] : [s]));
}

function assertNoSecrets(text: string, where: string, secrets: string[]): void {
  for (const secret of forms(secrets))
    assert.ok(!text.includes(secret), `${where} holds a secret (${secret.slice(0, 10)}…)`);
}

test('the API key check hashes both sides and compares with timingSafeEqual', () => {
  const source = readFileSync(path.join(PROJECT_ROOT, 'src/http/auth.ts'), 'utf8');
  // Equal-length digests make the comparison independent of the token's length and content.
  assert.match(source, /const expected = createHash\('sha256'\)\.update\(apiKey\)\.digest\(\)/);
  assert.match(source, /boundedMemo\(\(token\) => createHash\('sha256'\)\.update\(token\)\.digest\(\)\)/);
  assert.match(source, /const given = digestOf\(token\)/);
  // Stored keys are found by the SHA-256 of the presented secret (an index lookup), never compared in plain.
  assert.match(
    readFileSync(path.join(PROJECT_ROOT, 'src/domain/api-keys/service.ts'), 'utf8'),
    /findByHash\(hashApiKey\(secret\)\)/,
  );
  assert.match(source, /timingSafeEqual\(given, expected\)/);
  assert.doesNotMatch(source, /===\s*apiKey|apiKey\s*===/);
});

test('tokens of every length, and non-ASCII tokens, answer 401 without throwing', async (t) => {
  const s = await buildWithRelayers(t);
  for (const token of [
    'x',
    API_KEY.slice(0, 1),
    API_KEY.slice(0, -1),
    `${API_KEY}0`,
    API_KEY.toUpperCase(),
    'k'.repeat(8000),
    'clé-ÿ'.repeat(10),
    '%00%00',
  ]) {
    const res = await rawRequest(s.url, 'GET', '/api/v1/relayers', [['Authorization', `Bearer ${token}`]]);
    assert.equal(res.status, 401, token.slice(0, 20));
    assert.deepEqual(res.body, {
      success: false,
      code: 401,
      data: null,
      error: 'Unauthorized',
      message: 'Unauthorized',
    });
    assert.match(res.headers.get('www-authenticate') ?? '', /invalid API key/);
  }
  assert.ok(!s.logs.some((l) => (l.level as number) >= 50), 'no error was logged');
});

test('signer keys, keystore passphrases and API key secrets never reach an answer or a log line, even in refused requests', async (t) => {
  const s = await buildWithRelayers(t);
  const signerKey = '0x' + '7a'.repeat(32);
  const answers: string[] = [];
  const post = async (p: string, body: unknown) => answers.push((await s.request('POST', p, { body })).text);
  await post('/api/v1/signers', { id: 'leak-test', type: 'plain', config: { key: signerKey, extra: true } });
  await post('/api/v1/signers', { id: 'leak-test', type: 'plain', config: { key: signerKey.slice(0, -2) } });
  await post('/api/v1/signers', { id: 'leak-test', type: 'plain', config: { key: signerKey } });
  await post('/api/v1/signers', { id: 'leak-test', type: 'plain', config: { key: signerKey } });
  answers.push((await s.request('GET', '/api/v1/signers/leak-test')).text);
  const created = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'leak', permissions: ['relayer:all:read'] },
  });
  const secret = created.body.data.value as string;
  answers.push((await s.request('GET', '/api/v1/api-keys')).text);
  answers.push(
    (await request(s.url, 'POST', '/api/v1/relayers/evm/transactions', { auth: `Bearer ${secret}`, body: evmBody() }))
      .text,
  );
  assertNoSecrets(answers.join('\n'), 'an answer', [signerKey, secret]);
  assertNoSecrets(s.rawLogs(), 'the log', [signerKey, signerKey.slice(0, -2), secret]);
});

/** A mix of good and failing requests carrying the secrets in the URL, the query, the body and headers. */
async function driveSecretsEverywhere(
  s: TestServer,
  secrets: { api: string; evm: string; configKey: string; apiKey2: string },
) {
  const responses: string[] = [];
  const auth: [string, string] = ['Authorization', `Bearer ${secrets.api}`];
  const json = (): [string, string][] => [['Content-Type', 'application/json'], auth];
  const send = async (method: string, p: string, headers: [string, string][], body?: unknown) => {
    const res = await rawRequest(
      s.url,
      method,
      p,
      headers,
      body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    );
    assert.ok(res.status < 500, `${method} ${p}: ${res.status} ${res.text}`);
    responses.push(JSON.stringify(res.body ?? res.text));
    return res;
  };
  const created = await send('POST', '/api/v1/notifications', json(), {
    id: 'api-signed',
    url: 'http://203.0.113.9/a',
    signing_key: secrets.apiKey2,
  });
  assert.equal(created.status, 201);
  assert.equal(created.body.data.has_signing_key, true);
  await send('PATCH', '/api/v1/notifications/api-signed', json(), { signing_key: secrets.apiKey2 });
  await send('GET', '/api/v1/notifications/api-signed', [auth]);
  await send('GET', '/api/v1/notifications', [auth]);
  // Failing bodies that carry keys in fields: validation reasons must not echo the values.
  for (const body of [
    { url: 'not a url', signing_key: secrets.apiKey2 },
    { url: 'http://127.0.0.1:9/a', signing_key: { nested: secrets.configKey } },
    { url: 'http://127.0.0.1:9/a', signing_key: [secrets.apiKey2] },
    { url: 'http://127.0.0.1:9/a', id: secrets.api },
    { url: 'http://127.0.0.1:9/a', type: secrets.evm },
    { url: secrets.api },
    { url: `http://127.0.0.1:9/${secrets.apiKey2}`, signing_key: 'short' },
  ]) {
    const res = await send('POST', '/api/v1/notifications', json(), body);
    assert.equal(res.status, 400, JSON.stringify(body));
  }
  await send(
    'POST',
    '/api/v1/notifications',
    json(),
    `{"url":"http://127.0.0.1:9/a","signing_key":"${secrets.apiKey2}"`,
  );
  await send('POST', '/api/v1/notifications', [['Content-Type', 'text/plain'], auth], `signing_key=${secrets.apiKey2}`);
  await send('PATCH', '/api/v1/notifications/api-signed', json(), {
    signing_key: `${secrets.configKey.slice(0, 20)}`,
    url: secrets.configKey,
  });
  for (const body of [
    evmBody({ data: `${secrets.evm}z` }),
    evmBody({ to: secrets.evm }),
    evmBody({ value: secrets.evm }),
    { private_key: secrets.evm, value: 1 },
    evmBody({ speed: secrets.api }),
  ]) {
    const res = await send('POST', txPath('evm'), json(), body);
    assert.equal(res.status, 400, JSON.stringify(body));
  }
  assert.equal((await send('POST', txPath('evm'), json(), evmBody())).status, 200);
  assert.equal((await send('POST', txPath('evm-env'), json(), evmBody())).status, 200);
  // Secrets in the query string and in headers.
  await send(
    'GET',
    `${txPath('evm')}?api_key=${secrets.api}&signing_key=${secrets.apiKey2}&private_key=${secrets.evm}`,
    [auth],
  );
  await send('GET', `/api/v1/relayers?page=1&token=${encodeURIComponent(secrets.configKey)}`, [auth]);
  await send('GET', '/api/v1/relayers', [
    auth,
    ['X-Api-Key', secrets.api],
    ['X-Request-Id', secrets.api],
    ['Cookie', `key=${secrets.evm}`],
  ]);
  // Wrong tokens that contain the key, and the key where no key belongs.
  for (const header of [
    `Bearer ${secrets.api}x`,
    `Basic ${secrets.api}`,
    `Bearer ${secrets.evm}`,
    `Bearer ${secrets.configKey}`,
    secrets.api,
  ]) {
    await send('GET', '/api/v1/relayers', [['Authorization', header]]);
  }
  await send('GET', `/api/v1/relayers?key=${secrets.api}`, []);
  return responses;
}

test('with LOG_LEVEL=debug no log line holds the API key, a signing key or a signer key, whatever the requests carry', async (t) => {
  const s = await buildWithRelayers(t, {
    env: { HOOK_KEY: CONFIG_SIGNING_KEY, LOG_LEVEL: 'debug' },
    config: {
      notifications: [
        ...testConfig.notifications!,
        { id: 'signed', url: 'http://127.0.0.1:9/s', signing_key_env: 'HOOK_KEY' },
      ],
    },
  });
  const secrets = { api: API_KEY, evm: EVM_KEY, configKey: CONFIG_SIGNING_KEY, apiKey2: API_SIGNING_KEY };
  // The key in the path: known secrets are scrubbed from every line, wherever they appear.
  for (const p of [
    `/api/v1/relayers/${API_KEY}`,
    `/api/v1/relayers/${EVM_KEY}/transactions`,
    `/api/v1/relayers/evm/transactions/${CONFIG_SIGNING_KEY}`,
    `/api/v1/${EVM_KEY_2}`,
  ]) {
    const res = await s.request('GET', p);
    assert.equal(res.status, 404, p);
  }
  const responses = await driveSecretsEverywhere(s, secrets);
  const logs = s.rawLogs();
  assert.ok(s.logs.length > 40, 'the requests were logged');
  assert.ok(
    s.logs.some((l) => l.level === 20),
    'debug lines were written',
  );
  assertNoSecrets(logs, 'the log', [API_KEY, EVM_KEY, EVM_KEY_2, CONFIG_SIGNING_KEY, API_SIGNING_KEY]);
  assert.match(logs, /\[redacted\]/);
  // Responses may echo an id the client put in the path (the spec's 404 text does); they never echo a field's value.
  assertNoSecrets(responses.join('\n'), 'a response', [
    API_KEY,
    EVM_KEY,
    EVM_KEY_2,
    CONFIG_SIGNING_KEY,
    API_SIGNING_KEY,
  ]);
});

test('the store keeps no signing key in plain text when STORAGE_ENCRYPTION_KEY is set, and reads never return one', async (t) => {
  const s = await buildWithRelayers(t, { env: { STORAGE_ENCRYPTION_KEY: 'storage-encryption-key-0123456789abcdef' } });
  const created = await s.request('POST', '/api/v1/notifications', {
    body: { id: 'enc', url: 'http://203.0.113.9/a', signing_key: API_SIGNING_KEY },
  });
  assert.equal(created.status, 201);
  const stored = s.app.db.prepare('SELECT signing_key FROM notifications WHERE id = ?').pluck().get('enc') as string;
  assert.match(stored, /^enc:v1:/);
  assert.ok(!stored.includes(API_SIGNING_KEY));
  for (const p of ['/api/v1/notifications', '/api/v1/notifications/enc'])
    assertNoSecrets((await s.request('GET', p)).text, p, [API_SIGNING_KEY]);
  assertNoSecrets(s.rawLogs(), 'the log', [API_SIGNING_KEY, 'storage-encryption-key-0123456789abcdef']);
});

test('node src/main.ts at LOG_LEVEL=debug prints no secret, whatever the requests carry', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-secrets-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = path.join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      ...testConfig,
      notifications: [{ id: 'signed', url: 'http://127.0.0.1:9/s', signing_key_env: 'HOOK_KEY' }],
      plugins: [],
    }),
  );
  // JSON lines (a log shipper's), and the default compact text a person reads: pino-pretty must not undo the scrubbing.
  for (const [format, debugLine] of [
    ['json', /"level":20/],
    ['compact', /\] DEBUG: /],
  ] as const) {
    const svc = startService({
      API_KEY,
      DATA_DIR: path.join(dir, `data-${format}`),
      CONFIG_PATH: configPath,
      LOG_LEVEL: 'debug',
      LOG_FORMAT: format,
      HOOK_KEY: CONFIG_SIGNING_KEY,
      RELAYBOX_TEST_EVM_KEY: EVM_KEY_2,
    });
    t.after(() => svc.killHard());
    const url = await svc.listening;
    for (const p of [
      `/api/v1/relayers/${API_KEY}`,
      `/api/v1/relayers/${EVM_KEY}`,
      `/api/v1/relayers/evm/transactions/${CONFIG_SIGNING_KEY}`,
      `/api/v1/relayers?token=${EVM_KEY_2}`,
    ]) {
      assert.ok((await request(url, 'GET', p)).status < 500, p);
    }
    await request(url, 'POST', '/api/v1/notifications', { body: { url: 'nope', signing_key: API_SIGNING_KEY } });
    await request(url, 'POST', txPath('evm-env'), { body: evmBody() });
    await request(url, 'GET', '/api/v1/relayers', { auth: `Bearer ${API_KEY}x` });
    assert.equal(await svc.stop(), 0);
    assert.match(svc.output(), debugLine, format);
    assertNoSecrets(svc.output(), `the process output (${format})`, [
      API_KEY,
      EVM_KEY,
      EVM_KEY_2,
      CONFIG_SIGNING_KEY,
      API_SIGNING_KEY,
    ]);
  }
});
