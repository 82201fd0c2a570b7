// The RPC URL guard (RPC_ALLOWED_HOSTS, RPC_BLOCK_PRIVATE_IPS) and what RPC failures may say: an API-given URL to an
// internal address is refused when given and at connect (DNS rebinding), and no route repeats a body that is not JSON-RPC.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { build } from '../helper.ts';
import { devnetNetwork, testConfig } from '../transactions/fixtures.ts';
import { startChains } from '../../src/chains/index.ts';
import type { ConfigFile, NetworkConfig } from '../../src/config/config.ts';

const SECRET = 'INTERNAL-SECRET-7f3a9c';
const signers = (testConfig.signers ?? []).filter((s) => s.id !== 'evm-signer-env');

/** A loopback HTTP service that is not a node: its answer holds a secret; `answer` picks how it is shaped. */
async function startInternalService(t: TestContext) {
  const state: { hits: number; answer: (res: http.ServerResponse) => void } = {
    hits: 0,
    answer: (res) => res.writeHead(500, { 'content-type': 'text/html' }).end(`<h1>admin</h1><p>${SECRET}</p>`),
  };
  const server = http.createServer((req, res) => {
    state.hits += 1;
    req.resume().on('end', () => state.answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

test('URLs given through the API to loopback, private, link-local and metadata addresses are refused with the host and the rule', async (t) => {
  const s = await build(t, {
    config: {
      networks: [{ type: 'solana', network: 'sol', rpc_urls: [{ url: 'https://203.0.113.10/', weight: 100 }] }],
      signers,
      relayers: [{ id: 'sol', name: 'Solana', network: 'sol', signer_id: 'solana-signer' }],
    },
  });
  const cases: Array<[string, RegExp]> = [
    ['http://127.0.0.1:8545', /host '127\.0\.0\.1' is a loopback address .*RPC_BLOCK_PRIVATE_IPS/],
    ['http://10.1.2.3/rpc/key', /host '10\.1\.2\.3' is a private address/],
    [
      'http://169.254.169.254/latest/meta-data',
      /host '169\.254\.169\.254' is a cloud metadata address.*always refused/,
    ],
    ['http://[::1]:8545', /host '::1' is a loopback address/],
    ['http://[::ffff:127.0.0.1]:8545', /host '::ffff:7f00:1' is a loopback address/],
    ['http://0.0.0.0:8545', /is an unspecified address/],
    ['http://localhost:8545', /host 'localhost' names an internal host/],
  ];
  for (const [url, reason] of cases) {
    const patched = await s.request('PATCH', '/api/v1/relayers/sol', {
      body: { custom_rpc_urls: ['https://203.0.113.11/', url] },
    });
    assert.equal(patched.status, 400, `${url}: ${patched.text}`);
    assert.equal(patched.body.success, false);
    assert.match(patched.body.error, /^'custom_rpc_urls\.1': RPC URL refused: /);
    assert.match(patched.body.error, reason);
    assert.ok(
      !patched.text.includes('/rpc/key') && !patched.text.includes('meta-data'),
      'the URL path (often a provider key) is not repeated',
    );
    const network = await s.request('PATCH', '/api/v1/networks/solana:sol', { body: { rpc_urls: [url] } });
    assert.equal(network.status, 400, network.text);
    assert.match(network.body.error, /^'rpc_urls\.0': RPC URL refused: /);
    const created = await s.request('POST', '/api/v1/relayers', {
      body: {
        id: 'made',
        name: 'Made',
        network: 'sol',
        network_type: 'solana',
        paused: false,
        signer_id: 'solana-signer',
        custom_rpc_urls: [url],
      },
    });
    assert.equal(created.status, 400, created.text);
  }
  assert.equal(
    (await s.request('GET', '/api/v1/relayers/sol')).body.data.custom_rpc_urls,
    null,
    'nothing refused was stored',
  );
  assert.equal((await s.request('GET', '/api/v1/relayers/made')).status, 404);
  assert.deepEqual((await s.request('GET', '/api/v1/networks/solana:sol')).body.data.rpc_urls, [
    { url: 'https://203.0.113.10', weight: 100 },
  ]);
  const publicUrl = await s.request('PATCH', '/api/v1/relayers/sol', {
    body: { custom_rpc_urls: ['https://203.0.113.11/'] },
  });
  assert.equal(publicUrl.status, 200, publicUrl.text);
});

test('RPC_ALLOWED_HOSTS lets only its hosts through; RPC_BLOCK_PRIVATE_IPS=false allows private addresses but never the metadata one', async (t) => {
  const config = {
    networks: [{ type: 'solana' as const, network: 'sol', rpc_urls: [{ url: 'https://203.0.113.10/', weight: 100 }] }],
    signers,
    relayers: [],
  };
  const listed = await build(t, { config, env: { RPC_ALLOWED_HOSTS: ' 203.0.113.7 , LocalHost ' } });
  const patch = (s: typeof listed, url: string) =>
    s.request('PATCH', '/api/v1/networks/solana:sol', { body: { rpc_urls: [url] } });
  assert.equal((await patch(listed, 'https://203.0.113.7/v1')).status, 200);
  const other = await patch(listed, 'https://198.51.100.9/');
  assert.equal(other.status, 400);
  assert.match(other.body.error, /host '198\.51\.100\.9' is not in RPC_ALLOWED_HOSTS/);
  const listedButPrivate = await patch(listed, 'http://localhost:8545/');
  assert.equal(listedButPrivate.status, 400, 'an allowed host still obeys RPC_BLOCK_PRIVATE_IPS');

  const open = await build(t, { config, env: { RPC_BLOCK_PRIVATE_IPS: 'false' } });
  for (const url of ['http://127.0.0.1:8545', 'http://10.1.2.3/', 'http://[::1]:8545', 'http://localhost:8545'])
    assert.equal((await patch(open, url)).status, 200, url);
  const metadata = await patch(open, 'http://169.254.169.254/');
  assert.equal(metadata.status, 400);
  assert.match(metadata.body.error, /cloud metadata address.*always refused/);
});

test('a config-file URL on loopback is not guarded: the devnet answers balance and status', async (t) => {
  const s = await build(t, {
    config: {
      networks: [devnetNetwork('sepolia', 11155111)],
      signers,
      relayers: [{ id: 'evm', name: 'EVM', network: 'sepolia', signer_id: 'evm-signer' }],
    },
  });
  const balance = await s.request('GET', '/api/v1/relayers/evm/balance');
  assert.equal(balance.status, 200, balance.text);
  assert.ok(BigInt(balance.body.data.balance) > 0n);
  assert.equal((await s.request('GET', '/api/v1/relayers/evm/status')).status, 200);
});

test('DNS rebinding: a name that resolved public when given and private at request time is refused at connect', async (t) => {
  const service = await startInternalService(t);
  service.answer = (res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
  const port = new URL(service.url).port;
  // The resolver the guard uses, steered: public when the URL is checked, loopback when the connection is opened.
  let answer = '203.0.113.5';
  const resolve = async () => [{ address: answer, family: 4 }];
  const network: NetworkConfig = {
    type: 'evm',
    network: 'rebind',
    chain_id: 1,
    symbol: 'ETH',
    rpc_urls: [{ url: 'https://203.0.113.1/', weight: 100 }],
  } as NetworkConfig;
  const file = {
    networks: [network],
    signers: [],
    relayers: [],
    notifications: [],
    plugins: [],
  } as unknown as ConfigFile;
  const chains = await startChains(file, {
    logger: pino({ level: 'silent' }),
    rpc: { retryCount: 0, timeoutMs: 5_000 },
    guard: { settings: { allowedHosts: [], blockPrivateIps: true }, configFile: file, resolve },
  });
  t.after(() => chains.close());
  const url = `http://rebind.example:${port}/`;

  await chains.checkRpcUrls([{ url }], 'rpc_urls');
  chains.setRpcUrls('evm', 'rebind', [{ url, weight: 100 }]);
  answer = '127.0.0.1';
  await assert.rejects(
    chains.evm('rebind').rawRequest('eth_blockNumber', []),
    (err: { code?: string; reason?: string }) => {
      assert.equal(err.code, 'CHAIN_UNAVAILABLE');
      assert.match(err.reason ?? '', /refused: host 'rebind\.example' resolves to 127\.0\.0\.1, a loopback address/);
      return true;
    },
  );
  assert.equal(service.hits, 0, 'no connection reached the internal service');
  await assert.rejects(chains.checkRpcUrls([{ url }], 'rpc_urls'), (err: { reason?: string }) =>
    /'rpc_urls\.0': RPC URL refused: host 'rebind\.example' resolves to 127\.0\.0\.1/.test(err.reason ?? ''),
  );

  // The same path with the address allowed reaches the service: the refusal above was the connect-time check's.
  const open = await startChains(file, {
    logger: pino({ level: 'silent' }),
    rpc: { retryCount: 0 },
    guard: { settings: { allowedHosts: [], blockPrivateIps: false }, configFile: file, resolve },
  });
  t.after(() => open.close());
  open.setRpcUrls('evm', 'rebind', [{ url, weight: 100 }]);
  assert.deepEqual(await open.evm('rebind').rawRequest('eth_blockNumber', []), { result: '0x1' });
  assert.equal(service.hits, 1);
});

const ANSWERS: Record<string, (res: http.ServerResponse) => void> = {
  'an HTTP error page': (res) =>
    res.writeHead(500, { 'content-type': 'text/html' }).end(`<h1>admin</h1><p>${SECRET}</p>`),
  'a 404 with a text body': (res) => res.writeHead(404, { 'content-type': 'text/plain' }).end(`not here: ${SECRET}`),
  'a 200 that is not JSON': (res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`${SECRET} is the admin token`),
  'a 200 JSON that is not JSON-RPC': (res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: SECRET })),
  'an error member that is a string': (res) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: SECRET })),
  'a JSON-RPC error whose message is long': (res) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: `${'x'.repeat(250)} ${SECRET}` } })),
};

test('an internal service answering a secret never has it repeated by the rpc, balance or status routes, nor in the logs', async (t) => {
  const service = await startInternalService(t);
  const { devnet: _devnet, ...evm } = devnetNetwork('internal-evm', 1);
  const networks = [
    { ...evm, rpc_urls: [{ url: service.url, weight: 100 }] },
    { type: 'solana', network: 'internal-sol', rpc_urls: [{ url: service.url, weight: 100 }] },
    {
      type: 'stellar',
      network: 'internal-xlm',
      passphrase: 'Test SDF Network ; September 2015',
      rpc_urls: [{ url: service.url, weight: 100 }],
    },
  ] as NetworkConfig[];
  const relayers = [
    { id: 'evm', name: 'EVM', network: 'internal-evm', signer_id: 'evm-signer' },
    // Through the guarded client: a URL given through the API, let through by RPC_BLOCK_PRIVATE_IPS=false.
    { id: 'evm-api', name: 'EVM (API URL)', network: 'internal-evm', signer_id: 'evm-signer' },
    { id: 'sol', name: 'Solana', network: 'internal-sol', signer_id: 'solana-signer' },
    { id: 'xlm', name: 'Stellar', network: 'internal-xlm', signer_id: 'stellar-signer' },
  ];
  // No retry rounds (PROVIDER_MAX_RETRIES=0): every answer here fails, and 6 shapes x 4 relayers x 3 routes each waited
  // out the pool's backoff (~16 s); what is repeated of an answer does not depend on how often it was asked.
  const s = await build(t, {
    config: { networks, signers, relayers },
    env: { RPC_BLOCK_PRIVATE_IPS: 'false', PROVIDER_MAX_RETRIES: '0' },
  });
  assert.equal(
    (await s.request('PATCH', '/api/v1/relayers/evm-api', { body: { custom_rpc_urls: [`${service.url}/via-api`] } }))
      .status,
    200,
  );
  const methods: Record<string, string> = {
    evm: 'eth_blockNumber',
    'evm-api': 'eth_blockNumber',
    sol: 'getSlot',
    xlm: 'getLatestLedger',
  };
  for (const [shape, answer] of Object.entries(ANSWERS)) {
    service.answer = answer;
    for (const [id, method] of Object.entries(methods)) {
      const before = service.hits;
      const answers = [
        await s.request('POST', `/api/v1/relayers/${id}/rpc`, {
          body: { jsonrpc: '2.0', id: 1, method, params: id === 'xlm' ? {} : [] },
        }),
        await s.request('GET', `/api/v1/relayers/${id}/balance`),
        await s.request('GET', `/api/v1/relayers/${id}/status`),
      ];
      assert.ok(service.hits > before, `${shape}, ${id}: the requests reached the internal service`);
      for (const a of answers) assert.ok(!a.text.includes(SECRET), `${shape}, ${id}: ${a.text}`);
      assert.ok(
        answers.some((a) => /HTTP \d{3}|not a JSON-RPC response|could not be read|Bad gateway|x{20}/.test(a.text)),
        `${shape}, ${id}: the failure is still readable: ${answers[0]!.text}`,
      );
    }
  }
  assert.ok(!s.rawLogs().includes(SECRET), 'no log line holds the secret');
  const health = JSON.stringify(s.app.chains.health());
  assert.ok(!health.includes(SECRET), health);
});
