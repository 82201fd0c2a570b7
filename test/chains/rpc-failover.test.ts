// RPC failover and per-URL health: dead, hanging and overloaded URLs against a real anvil, and the metrics they feed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createEvmChain, type EvmChainOptions } from '../../src/chains/evm/adapter.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import type { RpcObserver } from '../../src/chains/evm/rpc-transport.ts';
import type { EvmNetworkConfig, RpcUrlConfig } from '../../src/config/config.ts';
import type { AppError } from '../../src/errors.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil } from '../support/anvil.ts';

const anvil = await startAnvil();
after(() => anvil.stop());

/** Nothing listens there: connections are refused at once. */
const DEAD = 'http://127.0.0.1:1';
const FAST_RPC = { timeoutMs: 300, retryCount: 0, retryDelayMs: 10, cooldownMs: 60_000 };

/** An HTTP endpoint counting requests: forwards to anvil, answers 503, or never answers. */
async function endpoint(t: { after(fn: () => unknown): void }, mode: 'proxy' | 'overloaded' | 'hang') {
  const state = { requests: 0 };
  const server: Server = createServer(async (req, res) => {
    state.requests++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (mode === 'hang') return;
    if (mode === 'overloaded') return void res.writeHead(503).end('busy');
    const upstream = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/secret-api-key`, state };
}

function recorder(): RpcObserver & { requests: Array<{ url: string; method: string; error?: string }>; health: Array<[string, boolean]> } {
  const requests: Array<{ url: string; method: string; error?: string }> = [];
  const health: Array<[string, boolean]> = [];
  return {
    requests,
    health,
    rpcRequest: (e) => requests.push({ url: e.url, method: e.method, ...(e.error ? { error: e.error } : {}) }),
    rpcUrlHealth: (_network, url, up) => health.push([url, up]),
  };
}

const chainWith = (urls: Array<string | RpcUrlConfig>, options: EvmChainOptions = {}) =>
  createEvmChain(
    { ...anvil.network('failover'), rpc_urls: urls.map((u) => (typeof u === 'string' ? { url: u, weight: 100 } : u)) } as EvmNetworkConfig,
    { rpc: FAST_RPC, ...options },
  );

test('a dead first URL does not fail calls: they fail over, and health shows it down with its error', async () => {
  const observer = recorder();
  const chain = chainWith([DEAD, anvil.url], { observer });
  assert.equal(await chain.blockNumber(), await anvil.blockNumber());
  const outcome = await chain.broadcast(await anvil.signed(ANVIL_KEYS[0]));
  assert.equal(outcome.status, 'submitted');
  const [dead, live] = chain.health();
  assert.equal(dead!.url, DEAD);
  assert.equal(dead!.up, false);
  assert.match(dead!.lastError ?? '', /fetch failed|ECONNREFUSED|connect/i);
  assert.equal(live!.up, true);
  assert.equal(typeof live!.latencyMs, 'number');
  assert.ok(live!.checkedAt);
  assert.deepEqual(observer.health, [[DEAD, true], [anvil.url, true], [DEAD, false]]);
  assert.equal(observer.requests.filter((r) => r.url === DEAD).length, 1, 'a down URL is skipped, not retried on every call');
  assert.equal(observer.requests.find((r) => r.url === DEAD)?.error, 'network');
});

test('a URL that never answers times out, is skipped while down, and is probed again after its cooldown', async (t) => {
  const hang = await endpoint(t, 'hang');
  const observer = recorder();
  const chain = chainWith([hang.url, anvil.url], { observer, rpc: { ...FAST_RPC, cooldownMs: 200 } });
  await chain.blockNumber();
  await chain.blockNumber();
  await chain.balance(ANVIL_ADDRESSES[0]!);
  assert.equal(hang.state.requests, 1);
  assert.equal(observer.requests[0]?.error, 'timeout');
  assert.equal(chain.health()[0]!.up, false);
  await new Promise((r) => setTimeout(r, 250));
  await chain.blockNumber();
  assert.equal(hang.state.requests, 2, 'probed again once the cooldown passed');
});

test('an overloaded URL (HTTP 503) fails over; a node refusing a transaction does not', async (t) => {
  const busy = await endpoint(t, 'overloaded');
  const proxy = await endpoint(t, 'proxy');
  const chain = chainWith([busy.url, proxy.url]);
  await chain.blockNumber();
  assert.equal(busy.state.requests, 1);
  assert.equal(proxy.state.requests, 1);

  const second = await endpoint(t, 'proxy');
  const refusing = chainWith([proxy.url, second.url]);
  const outcome = await refusing.broadcast(await anvil.signed(ANVIL_KEYS[2], { nonce: 0, value: 99n, gas: 20_000n }));
  assert.equal(outcome.status, 'rejected');
  assert.equal(second.state.requests, 0, 'the node answered: another URL would answer the same');
  assert.equal(refusing.health()[0]!.up, true, 'a URL that answers stays up, whatever it answers');
});

test('URLs are tried by weight, highest first: a lower-weight dead URL is never asked while the other answers', async () => {
  const observer = recorder();
  const chain = chainWith([{ url: DEAD, weight: 10 }, { url: anvil.url, weight: 90 }], { observer });
  await chain.blockNumber();
  await chain.fees();
  assert.deepEqual([...new Set(observer.requests.map((r) => r.url))], [anvil.url]);
  assert.deepEqual(chain.health().map((h) => h.url), [anvil.url, DEAD]);
});

test('when no URL answers, reads fail with CHAIN_UNAVAILABLE naming the network and broadcast says unavailable', async () => {
  const chain = chainWith([DEAD, 'http://127.0.0.1:2']);
  await assert.rejects(chain.blockNumber(), (err: AppError) => {
    assert.equal(err.code, 'CHAIN_UNAVAILABLE');
    assert.equal(err.status, 503);
    assert.match(err.reason, /^network 'failover': eth_blockNumber failed: /);
    return true;
  });
  const outcome = await chain.broadcast(await anvil.signed(ANVIL_KEYS[0]));
  assert.equal(outcome.status, 'unavailable');
  assert.ok(chain.health().every((h) => !h.up));
});

test('RPC metrics: requests by URL, errors by code, URL health; URLs are masked (no path, no key)', async (t) => {
  const proxy = await endpoint(t, 'proxy');
  const metrics = createMetrics({ transactionCounts: async () => [] });
  const chain = chainWith([DEAD, proxy.url], { observer: metrics });
  await chain.blockNumber();
  const masked = proxy.url.replace('/v3/secret-api-key', '/***');
  assert.deepEqual(chain.health().map((h) => h.url), [DEAD, masked]);
  const text = await metrics.render();
  assert.match(text, new RegExp(`relaybox_rpc_url_up\\{network="failover",url="${DEAD}"\\} 0`));
  assert.match(text, new RegExp(`relaybox_rpc_url_up\\{network="failover",url="${masked.replace(/\*/g, '\\*')}"\\} 1`));
  assert.match(text, new RegExp(`relaybox_rpc_errors_total\\{network="failover",url="${DEAD}",method="eth_blockNumber",code="network"\\} 1`));
  assert.match(text, /relaybox_rpc_request_duration_seconds_count\{network="failover",url="http:\/\/127\.0\.0\.1:\d+\/\*\*\*"\} 1/);
  assert.doesNotMatch(text, /secret-api-key/);
  assert.doesNotMatch(JSON.stringify(chain.health()), /secret-api-key/);
});
