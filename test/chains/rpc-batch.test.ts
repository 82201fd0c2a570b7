// JSON-RPC batching of broadcasts (a network's `rpc_batch`, on by default for a devnet): broadcasts made in the same
// turn reach the node as one HTTP request, each item answered (or refused) on its own. A recording proxy in front of
// a real anvil counts the HTTP requests and the items in each.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak256, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createEvmChain } from '../../src/chains/evm/adapter.ts';
import type { EvmNetworkConfig } from '../../src/config/config.ts';
import { ANVIL_ADDRESSES, startAnvil } from '../support/anvil.ts';
import { build } from '../helper.ts';
import { waitFor } from '../transactions/lifecycle/support.ts';

interface Item {
  method: string;
  params?: unknown[];
}

const anvil = await startAnvil();
after(() => anvil.stop());

/** A proxy to anvil that records each HTTP request's JSON-RPC items (an array for a batch); `down` answers 503. */
async function recordingProxy(options: { down?: boolean } = {}) {
  const requests: Item[][] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString();
      const parsed = JSON.parse(body) as Item | Item[];
      requests.push(Array.isArray(parsed) ? parsed : [parsed]);
      if (options.down) return void res.writeHead(503).end('down');
      const answer = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  after(() => new Promise<void>((done) => server.close(() => done())));
  const broadcasts = () => requests.filter((items) => items.some((i) => i.method === 'eth_sendRawTransaction'));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, broadcasts };
}

const network = (urls: string[], extra: Partial<EvmNetworkConfig> = {}) =>
  anvil.network('batched', { rpc_urls: urls.map((url) => ({ url, weight: 100 })), ...extra }) as EvmNetworkConfig;

/** A new key holding 100 ETH on the anvil (each test its own account, so no nonce is shared). */
async function fundedKey(): Promise<Hex> {
  const key = generatePrivateKey();
  await anvil.rpc('anvil_setBalance', [privateKeyToAccount(key).address, '0x56bc75e2d63100000']);
  return key;
}

/** `n` transactions from `key` with consecutive nonces from its pending one. */
async function signedRun(key: Hex, n: number): Promise<Hex[]> {
  const from = await anvil.pendingNonce(privateKeyToAccount(key).address);
  return Promise.all(Array.from({ length: n }, (_, k) => anvil.signed(key, { nonce: from + k })));
}

test('N concurrent broadcasts reach the node as one HTTP request with N items, each submitted', async () => {
  const proxy = await recordingProxy();
  const chain = createEvmChain(network([proxy.url], { rpc_batch: true }));
  await chain.checkChainId();
  const raws = await signedRun(await fundedKey(), 8);
  const outcomes = await Promise.all(raws.map((raw) => chain.broadcast(raw)));
  assert.deepEqual(
    outcomes,
    raws.map((raw) => ({ status: 'submitted', hash: keccak256(raw), alreadyKnown: false })),
  );
  assert.equal(proxy.broadcasts().length, 1, 'one HTTP request carried the broadcasts');
  assert.equal(proxy.broadcasts()[0]!.length, 8);
  await anvil.waitMined(keccak256(raws.at(-1)!));
});

test('one bad item of a batch is refused alone; the others are submitted', async () => {
  const proxy = await recordingProxy();
  const chain = createEvmChain(network([proxy.url], { rpc_batch: true }));
  await chain.checkChainId();
  const good = await signedRun(await fundedKey(), 4);
  // An account with no funds: the node refuses it (insufficient funds), a refusal of that item only.
  const broke = await anvil.signed(generatePrivateKey(), { nonce: 0 });
  const raws = [good[0]!, good[1]!, broke, good[2]!, good[3]!];
  const outcomes = await Promise.all(raws.map((raw) => chain.broadcast(raw)));
  assert.equal(proxy.broadcasts().length, 1);
  assert.equal(proxy.broadcasts()[0]!.length, 5);
  assert.equal(outcomes[2]!.status, 'rejected');
  if (outcomes[2]!.status === 'rejected') assert.match(outcomes[2]!.message, /insufficient funds/i);
  for (const k of [0, 1, 3, 4])
    assert.deepEqual(outcomes[k], { status: 'submitted', hash: keccak256(raws[k]!), alreadyKnown: false });
  await anvil.waitMined(keccak256(good[3]!));
});

test('a batch whose URL fails goes to the next URL, every item submitted once', async () => {
  const down = await recordingProxy({ down: true });
  const up = await recordingProxy();
  const chain = createEvmChain(network([down.url, up.url], { rpc_batch: true }), { rpc: { retryCount: 0 } });
  // The chain id is read through the URL that answers (the first one fails and is marked down).
  await chain.checkChainId();
  const raws = await signedRun(await fundedKey(), 4);
  const outcomes = await Promise.all(raws.map((raw) => chain.broadcast(raw)));
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['submitted', 'submitted', 'submitted', 'submitted'],
  );
  const sent = up
    .broadcasts()
    .flat()
    .filter((i) => i.method === 'eth_sendRawTransaction');
  assert.equal(sent.length, 4, 'each reached the node that answered once');
  await anvil.waitMined(keccak256(raws.at(-1)!));
});

test('without rpc_batch each broadcast is its own request; a devnet network batches by default', async () => {
  const proxy = await recordingProxy();
  const plain = createEvmChain(network([proxy.url]));
  await plain.checkChainId();
  await Promise.all((await signedRun(await fundedKey(), 3)).map((raw) => plain.broadcast(raw)));
  assert.deepEqual(
    proxy.broadcasts().map((items) => items.length),
    [1, 1, 1],
  );

  const devnetProxy = await recordingProxy();
  const devnet = createEvmChain(network([devnetProxy.url], { devnet: {} }));
  await devnet.checkChainId();
  await Promise.all((await signedRun(await fundedKey(), 3)).map((raw) => devnet.broadcast(raw)));
  assert.deepEqual(
    devnetProxy.broadcasts().map((items) => items.length),
    [3],
  );
});

test('concurrent sends through the service: their broadcasts travel in batches, every send submitted once', async (t) => {
  const proxy = await recordingProxy();
  const s = await build(t, {
    config: {
      networks: [network([proxy.url], { rpc_batch: true })],
      signers: [{ id: 'key', type: 'local', development: true, private_key: await fundedKey() }],
      relayers: [{ id: 'relay', name: 'batched', network: 'batched', signer_id: 'key' }],
      notifications: [],
      plugins: [],
    },
  });
  const N = 12;
  const body = { to: ANVIL_ADDRESSES[2]!, value: 1, gas_limit: 21_000, speed: 'fast' };
  const answers = await Promise.all(
    Array.from({ length: N }, () => s.request('POST', '/api/v1/relayers/relay/transactions', { body })),
  );
  const ids = answers.map((a) => {
    assert.equal(a.status, 200, JSON.stringify(a.body));
    return (a.body.data as { id: string }).id;
  });
  for (const id of ids) {
    await waitFor(
      async () =>
        (await s.request('GET', `/api/v1/relayers/relay/transactions/${id}`)).body.data as { sent_at: string | null },
      (r) => r.sent_at !== null,
      20_000,
      `${id} submitted`,
    );
  }
  const items = proxy.broadcasts().map((b) => b.filter((i) => i.method === 'eth_sendRawTransaction').length);
  const raws = proxy
    .broadcasts()
    .flat()
    .filter((i) => i.method === 'eth_sendRawTransaction')
    .map((i) => (i.params as Hex[])[0]!);
  assert.equal(new Set(raws).size, N, 'every send was broadcast');
  assert.ok(Math.max(...items) > 1, `some broadcasts shared a request (items per request: ${items.join(', ')})`);
  assert.ok(items.length < N, `fewer HTTP requests than broadcasts (items per request: ${items.join(', ')})`);
});
