// RPC failover and per-URL health: dead, hanging and overloaded URLs against a real anvil, and the metrics they feed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createEvmChain, type EvmChainOptions } from '../../src/chains/evm/adapter.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { createRpcPool, postJsonRpc, type JsonRpcResponse } from '../../src/chains/rpc-pool.ts';
import type { RpcObserver } from '../../src/chains/rpc-options.ts';
import type { EvmNetworkConfig, RpcUrlConfig } from '../../src/config/config.ts';
import type { AppError } from '../../src/errors.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil } from '../support/anvil.ts';
import { startRpcProxy, type FaultMode } from '../support/rpc-proxy.ts';

const anvil = await startAnvil();
after(() => anvil.stop());

/** Nothing listens there: connections are refused at once. */
const DEAD = 'http://127.0.0.1:1';
// A hanging URL costs its timeout; the live ones (anvil, through a proxy) must answer within it, on a loaded machine too.
const FAST_RPC = { timeoutMs: 2_000, retryCount: 0, retryDelayMs: 10, cooldownMs: 60_000 };

type EndpointMode = 'proxy' | 'overloaded' | 'hang' | 'limited';
const modeOf = (mode: EndpointMode, retryAfter: string): FaultMode =>
  mode === 'proxy'
    ? { kind: 'pass' }
    : mode === 'overloaded'
      ? { kind: 'overloaded' }
      : mode === 'hang'
        ? { kind: 'hang' }
        : { kind: 'limited', retryAfter };

/**
 * An RPC URL counting requests (test/support/rpc-proxy.ts): forwards to anvil, answers 503, never answers, or answers
 * 429 with a Retry-After (`retryAfter`: its value). `set` changes its mode while it runs.
 */
async function endpoint(t: { after(fn: () => unknown): void }, initial: EndpointMode, retryAfter = '30') {
  const proxy = await startRpcProxy(anvil.url);
  proxy.mode = modeOf(initial, retryAfter);
  t.after(() => proxy.close());
  return {
    url: `${proxy.url}/v3/secret-api-key`,
    requests: () => proxy.counts.requests,
    set: (mode: EndpointMode) => void (proxy.mode = modeOf(mode, retryAfter)),
  };
}

function recorder(): RpcObserver & {
  requests: Array<{ url: string; method: string; error?: string }>;
  health: Array<[string, boolean]>;
} {
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
    {
      ...anvil.network('failover'),
      rpc_urls: urls.map((u) => (typeof u === 'string' ? { url: u, weight: 100 } : u)),
    } as EvmNetworkConfig,
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
  assert.deepEqual(observer.health, [
    [DEAD, true],
    [anvil.url, true],
    [DEAD, false],
  ]);
  assert.equal(
    observer.requests.filter((r) => r.url === DEAD).length,
    1,
    'a down URL is skipped, not retried on every call',
  );
  assert.equal(observer.requests.find((r) => r.url === DEAD)?.error, 'network');
});

test('a URL that never answers times out, is skipped while down, and is probed again after its cooldown', async (t) => {
  const hang = await endpoint(t, 'hang');
  const observer = recorder();
  // The pause is read against this clock: the calls below fall inside it however slow the machine, then it is stepped past.
  let at = Date.now();
  const chain = chainWith([hang.url, anvil.url], { observer, rpc: { ...FAST_RPC, cooldownMs: 60_000, now: () => at } });
  await chain.blockNumber();
  await chain.blockNumber();
  await chain.balance(ANVIL_ADDRESSES[0]!);
  assert.equal(hang.requests(), 1);
  assert.equal(observer.requests[0]?.error, 'timeout');
  assert.equal(chain.health()[0]!.up, false);
  at += 60_000;
  await chain.blockNumber();
  // The probe goes out in the background: the call itself was answered by the live URL.
  while (hang.requests() < 2) await new Promise((r) => setTimeout(r, 10));
  assert.equal(hang.requests(), 2, 'probed again once the cooldown passed');
});

test('an overloaded URL (HTTP 503) fails over; a node refusing a transaction does not mark its URL down', async (t) => {
  const busy = await endpoint(t, 'overloaded');
  const proxy = await endpoint(t, 'proxy');
  const chain = chainWith([busy.url, proxy.url]);
  await chain.blockNumber();
  assert.equal(busy.requests(), 1);
  assert.equal(proxy.requests(), 1);

  const second = await endpoint(t, 'proxy');
  const refusing = chainWith([proxy.url, second.url]);
  const outcome = await refusing.broadcast(await anvil.signed(ANVIL_KEYS[2], { nonce: 0, value: 99n, gas: 20_000n }));
  assert.equal(outcome.status, 'rejected');
  // Issue 40: a broadcast goes to every URL that takes it (one that swallows must not hold it back), each answering
  // for itself; nothing fails over, and a refusal is no fault of the URL.
  assert.equal(second.requests(), 1, 'the broadcast went to the second URL too, once');
  assert.deepEqual(
    refusing.health().map((h) => h.up),
    [true, true],
    'a URL that answers stays up, whatever it answers',
  );
});

test('URLs are tried by weight, highest first: a lower-weight dead URL is never asked while the other answers', async () => {
  const observer = recorder();
  const chain = chainWith(
    [
      { url: DEAD, weight: 10 },
      { url: anvil.url, weight: 90 },
    ],
    { observer },
  );
  await chain.blockNumber();
  await chain.fees();
  assert.deepEqual([...new Set(observer.requests.map((r) => r.url))], [anvil.url]);
  assert.deepEqual(
    chain.health().map((h) => h.url),
    [anvil.url, DEAD],
  );
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
  assert.deepEqual(
    chain.health().map((h) => h.url),
    [DEAD, masked],
  );
  const text = await metrics.render();
  assert.match(text, new RegExp(`relaybox_rpc_url_up\\{network="failover",url="${DEAD}"\\} 0`));
  assert.match(text, new RegExp(`relaybox_rpc_url_up\\{network="failover",url="${masked.replace(/\*/g, '\\*')}"\\} 1`));
  assert.match(
    text,
    new RegExp(
      `relaybox_rpc_errors_total\\{network="failover",url="${DEAD}",method="eth_blockNumber",code="network"\\} 1`,
    ),
  );
  assert.match(
    text,
    /relaybox_rpc_request_duration_seconds_count\{network="failover",url="http:\/\/127\.0\.0\.1:\d+\/\*\*\*"\} 1/,
  );
  assert.doesNotMatch(text, /secret-api-key/);
  assert.doesNotMatch(JSON.stringify(chain.health()), /secret-api-key/);
});

const until = async (ok: () => boolean) => {
  while (!ok()) await new Promise((r) => setTimeout(r, 10));
};

test('HTTP 429 with Retry-After (seconds or an HTTP date) pauses that URL only, for as long as it asks; calls go on through the other', async (t) => {
  for (const retryAfter of ['30', new Date(Date.now() + 30_000).toUTCString()]) {
    const limited = await endpoint(t, 'limited', retryAfter);
    const live = await endpoint(t, 'proxy');
    const observer = recorder();
    // A 50 ms backoff: only the Retry-After keeps the URL paused past it.
    const chain = chainWith([limited.url, live.url], { observer, rpc: { ...FAST_RPC, cooldownMs: 50, retryCount: 2 } });
    assert.equal(await chain.blockNumber(), await anvil.blockNumber());
    await new Promise((r) => setTimeout(r, 120));
    for (let i = 0; i < 5; i++) await chain.blockNumber();
    assert.equal(
      limited.requests(),
      1,
      `Retry-After ${retryAfter}: not asked again, not even probed, while it asks to wait`,
    );
    assert.equal(live.requests(), 6);
    assert.equal(chain.health()[0]!.up, false);
    assert.equal(chain.health()[0]!.lastError, 'HTTP 429');
    assert.equal(observer.requests.filter((r) => r.error === 'http_429').length, 1);
  }
});

test("a 429 on the last URL does not make viem wait out its Retry-After: the next round starts after the pool's own short delay", {
  timeout: 20_000,
}, async (t) => {
  const live = await endpoint(t, 'hang');
  const limited = await endpoint(t, 'limited', '3600');
  const chain = chainWith(
    [
      { url: live.url, weight: 90 },
      { url: limited.url, weight: 10 },
    ],
    { rpc: { ...FAST_RPC, retryCount: 1, retryDelayMs: 10 } },
  );
  // Round one: the first URL times out, the second answers 429 (Retry-After: an hour). Round two must come at once
  // and find the first URL answering (it no longer hangs): the call succeeds instead of hanging for an hour.
  const answered = chain.blockNumber();
  await until(() => limited.requests() === 1);
  live.set('proxy');
  assert.equal(await answered, await anvil.blockNumber());
  assert.equal(limited.requests(), 1);
});

test('calls waiting on a URL that stops answering all move to the other URL when the first of them times out', async (t) => {
  const hang = await endpoint(t, 'hang');
  const live = await endpoint(t, 'proxy');
  const observer = recorder();
  const chain = chainWith([hang.url, live.url], { observer, rpc: FAST_RPC });
  const started = [];
  for (let i = 0; i < 4; i++) {
    started.push(chain.balance(ANVIL_ADDRESSES[i % ANVIL_ADDRESSES.length]!));
    // Each call is on the hanging URL before the next starts (they would time out one after the other).
    await until(() => hang.requests() === i + 1);
  }
  const balances = await Promise.all(started);
  assert.equal(balances.length, 4);
  assert.equal(
    observer.requests.filter((r) => r.url === hang.url.replace('/v3/secret-api-key', '/***') && r.error === 'timeout')
      .length,
    1,
    'one timeout counted; the others were released',
  );
  assert.equal(live.requests(), 4);
});

test('every URL down: calls still try them (no URL is given up on), health says all down, and the first URL back ends the outage', async (t) => {
  const a = await endpoint(t, 'overloaded');
  const b = await endpoint(t, 'overloaded');
  const chain = chainWith([a.url, b.url], { rpc: { ...FAST_RPC, cooldownMs: 60_000 } });
  await assert.rejects(chain.blockNumber(), (err: AppError) => err.code === 'CHAIN_UNAVAILABLE');
  assert.ok(chain.health().every((h) => !h.up));
  b.set('proxy');
  assert.equal(await chain.blockNumber(), await anvil.blockNumber());
  assert.deepEqual(
    chain.health().map((h) => h.up),
    [false, true],
  );
  // With one URL up again, the other is left to its background probe.
  const before = a.requests();
  await chain.blockNumber();
  assert.equal(a.requests(), before);
});

test('the Solana/Stellar pool: a 429 pauses that URL for its Retry-After, and a paused URL comes back through a background probe, not a call', async (t) => {
  const limited = await endpoint(t, 'limited', '30');
  const flaky = await endpoint(t, 'overloaded');
  const live = await endpoint(t, 'proxy');
  const blockNumber = { method: 'eth_blockNumber', params: [] };
  const pool = createRpcPool<{ method: string; params: unknown[] }, JsonRpcResponse>({
    network: 'pool',
    urls: [limited.url, flaky.url, live.url].map((url, i) => ({ url, weight: 100 - i })),
    ...FAST_RPC,
    cooldownMs: 50,
    send: (url, req, signal) => postJsonRpc(url, req, signal),
    errorCode: (r) => r.error?.code,
    probe: blockNumber,
  });
  const ask = () => pool.request('eth_blockNumber', blockNumber);
  assert.ok((await ask()).result, 'answered by the live URL');
  assert.deepEqual([limited.requests(), flaky.requests(), live.requests()], [1, 1, 1]);
  assert.deepEqual(
    pool.health().map((h) => [h.up, h.lastError]),
    [
      [false, 'HTTP 429'],
      [false, 'HTTP 503'],
      [true, null],
    ],
  );
  flaky.set('proxy');
  await new Promise((r) => setTimeout(r, 80));
  await ask();
  // That call went to the live URL; it started the flaky URL's probe, which brings it back.
  await until(() => pool.health()[1]!.up);
  assert.equal(flaky.requests(), 2, 'one call before, then only the probe');
  await ask();
  assert.equal(flaky.requests(), 3, 'back in service');
  assert.equal(limited.requests(), 1, 'the 429 URL waits out its Retry-After, unprobed');
});
