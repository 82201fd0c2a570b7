// Idempotency keys on SQLite: a retried send answers the first one's transaction (after a restart too), another request
// with the key is refused, concurrent requests with one key create one transaction, and bad keys are refused clearly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { API_KEY, type TestServer } from '../helper.ts';
import { waitFor } from '../cluster/cluster.ts';
import { buildWithRelayers, evmBody, txPath } from './fixtures.ts';

const keyed = (key: string) => ({ 'idempotency-key': key });

async function countOf(s: TestServer, relayer = 'evm'): Promise<number> {
  const list = await s.request('GET', `${txPath(relayer)}?per_page=1`);
  assert.equal(list.status, 200, list.text);
  return list.body.pagination.total_items;
}

/** Node's client sends an array value as repeated header lines (fetch would join them into one). */
function postWithRepeatedKey(s: TestServer, keys: string[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${s.url}${txPath('evm')}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': keys },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(evmBody()));
  });
}

test('one key, one request: the retry answers the same transaction, marked replayed; another request answers 409', async (t) => {
  const s = await buildWithRelayers(t);
  const first = await s.request('POST', txPath('evm'), { body: evmBody(), headers: keyed('order-42') });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.headers.get('idempotent-replayed'), null);

  // The same request written differently (key order, whitespace): the same request.
  const rewritten = ` {"max_priority_fee_per_gas": 1000000000, "to":"${evmBody().to}",\n "max_fee_per_gas":20000000000, "value":1 } `;
  const retry = await s.request('POST', txPath('evm'), {
    rawBody: rewritten,
    headers: { ...keyed('order-42'), 'content-type': 'application/json' },
  });
  assert.equal(retry.status, 200, retry.text);
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(retry.body.data.id, first.body.data.id);
  assert.equal(retry.body.data.nonce, first.body.data.nonce);
  assert.equal(await countOf(s), 1);

  const other = await s.request('POST', txPath('evm'), { body: evmBody({ value: 2 }), headers: keyed('order-42') });
  assert.equal(other.status, 409, other.text);
  assert.equal(other.body.success, false);
  assert.equal(other.body.message, 'Idempotency key already used with a different request');
  assert.match(other.body.error, /'order-42'.*relayer 'evm'.*different request/);
  assert.ok(other.body.error.includes(first.body.data.id), 'the reason names the transaction the key answered');
  assert.equal(await countOf(s), 1, 'the refused request sent nothing');

  // Keys are per relayer, and a new key is a new transaction.
  const fresh = await s.request('POST', txPath('evm'), { body: evmBody(), headers: keyed('order-43') });
  const elsewhere = await s.request('POST', txPath('evm-env'), { body: evmBody(), headers: keyed('order-42') });
  assert.equal(fresh.status, 200, fresh.text);
  assert.equal(elsewhere.status, 200, elsewhere.text);
  assert.notEqual(fresh.body.data.id, first.body.data.id);
  assert.equal(elsewhere.headers.get('idempotent-replayed'), null);
  assert.equal(await countOf(s), 2);
});

test('eight concurrent requests with one key create one transaction, and each is answered with it', async (t) => {
  const s = await buildWithRelayers(t);
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => s.request('POST', txPath('evm'), { body: evmBody(), headers: keyed('burst') })),
  );
  for (const a of answers) assert.equal(a.status, 200, a.text);
  const ids = new Set(answers.map((a) => a.body.data.id));
  assert.equal(ids.size, 1, `one transaction for all: ${[...ids].join(', ')}`);
  assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 7);
  assert.equal(await countOf(s), 1);
  const status = await s.request('GET', '/api/v1/relayers/evm/status');
  assert.equal(status.body.data.nonce, '1', 'one nonce taken');
});

test('a send that fails before its transaction is written leaves the key free', async (t) => {
  const s = await buildWithRelayers(t);
  // More than the relayer holds: refused by the balance check, nothing written.
  const poor = await s.request('POST', txPath('evm'), {
    body: evmBody({ value: '1000000000000000000000000000' }),
    headers: keyed('retry-me'),
  });
  assert.equal(poor.status, 400, poor.text);
  const ok = await s.request('POST', txPath('evm'), { body: evmBody(), headers: keyed('retry-me') });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.headers.get('idempotent-replayed'), null);
  assert.equal(await countOf(s), 1);
});

test('a key that is too long, not printable ASCII, empty or given twice is refused with the reason', async (t) => {
  const s = await buildWithRelayers(t);
  for (const key of ['k'.repeat(256), 'caf\u00e9', '']) {
    const res = await s.request('POST', txPath('evm'), { body: evmBody(), headers: keyed(key) });
    assert.equal(res.status, 400, `${JSON.stringify(key)}: ${res.text}`);
    assert.equal(res.body.error, "'Idempotency-Key' must be a string of 1 to 255 printable ASCII characters");
  }
  const twice = await postWithRepeatedKey(s, ['a', 'b']);
  assert.equal(twice.status, 400);
  assert.equal(twice.body.error, "header 'Idempotency-Key' must be given once");
  const longest = await s.request('POST', txPath('evm'), { body: evmBody(), headers: keyed(`${'k'.repeat(254)}~`) });
  assert.equal(longest.status, 200, longest.text);
  assert.equal(await countOf(s), 1);
});

test('after a restart on the same database file, the key still answers its transaction', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-idempotency-'));
  try {
    const before = await buildWithRelayers(undefined, { dataDir });
    let first;
    try {
      first = await before.request('POST', txPath('evm'), { body: evmBody(), headers: keyed('survives') });
      assert.equal(first.status, 200, first.text);
    } finally {
      await before.close();
    }
    const after = await buildWithRelayers(undefined, { dataDir });
    try {
      const retry = await after.request('POST', txPath('evm'), { body: evmBody(), headers: keyed('survives') });
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(retry.body.data.id, first.body.data.id);
      const other = await after.request('POST', txPath('evm'), {
        body: evmBody({ value: 3 }),
        headers: keyed('survives'),
      });
      assert.equal(other.status, 409, other.text);
    } finally {
      await after.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a key older than 25 hours is free again, and the next process deletes expired keys after a keyed send', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-idempotency-'));
  const db = new Database(path.join(dataDir, 'relaybox.sqlite'), { fileMustExist: false });
  try {
    const before = await buildWithRelayers(undefined, { dataDir });
    try {
      for (const key of ['reused', 'pruned', 'kept'])
        assert.equal(
          (await before.request('POST', txPath('evm'), { body: evmBody(), headers: keyed(key) })).status,
          200,
        );
      db.pragma('busy_timeout = 5000');
      db.prepare("UPDATE idempotency_keys SET created_ms = created_ms - ? WHERE key IN ('reused', 'pruned')").run(
        26 * 3600_000,
      );
      const reused = await before.request('POST', txPath('evm'), {
        body: evmBody({ value: 2 }),
        headers: keyed('reused'),
      });
      assert.equal(reused.status, 200, `an expired key sends anew: ${reused.text}`);
      assert.equal(reused.headers.get('idempotent-replayed'), null);
      assert.equal(await countOf(before), 4);
    } finally {
      await before.close();
    }
    const after = await buildWithRelayers(undefined, { dataDir });
    try {
      assert.equal(
        (await after.request('POST', txPath('evm'), { body: evmBody(), headers: keyed('trigger') })).status,
        200,
      );
      const keys = () =>
        (db.prepare('SELECT key FROM idempotency_keys ORDER BY key').pluck().all() as string[]).join(',');
      await waitFor(() => keys() === 'kept,reused,trigger', 'the expired key to be deleted', 10_000);
    } finally {
      await after.close();
    }
  } finally {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
