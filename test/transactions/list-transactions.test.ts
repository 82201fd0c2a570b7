import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWithRelayers, evmBody, stellarBody, txPath } from './fixtures.ts';
import { shared } from '../helper.ts';

/** The tests below only read, or check what a request changed against counts taken just before: they share one app. */
const app = shared(() => buildWithRelayers(undefined));

async function seed(s: Awaited<ReturnType<typeof buildWithRelayers>>, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await s.request('POST', txPath('evm'), { body: evmBody({ value: i }) })).body.data.id);
  return ids;
}

test('the list is newest first, paginated with current_page, per_page and total_items', async (t) => {
  const s = await buildWithRelayers(t);
  const ids = await seed(s, 25);
  const first = await s.request('GET', txPath('evm'));
  assert.equal(first.status, 200);
  assert.equal(first.body.success, true);
  assert.deepEqual(first.body.pagination, { current_page: 1, per_page: 10, total_items: 25 });
  assert.deepEqual(
    first.body.data.map((tx: { id: string }) => tx.id),
    ids.slice(-10).reverse(),
  );
  const last = await s.request('GET', `${txPath('evm')}?page=3&per_page=10`);
  assert.deepEqual(
    last.body.data.map((tx: { id: string }) => tx.id),
    ids.slice(0, 5).reverse(),
  );
  const beyond = await s.request('GET', `${txPath('evm')}?page=4`);
  assert.deepEqual(beyond.body.data, []);
  assert.equal(beyond.body.pagination.total_items, 25);
  const all = await s.request('GET', `${txPath('evm')}?per_page=100`);
  const created = all.body.data.map((tx: { created_at: string }) => tx.created_at);
  assert.deepEqual(created, [...created].sort().reverse());
});

test('paths with and without the trailing slash both list', async (t) => {
  const s = await buildWithRelayers(t);
  await seed(s, 1);
  for (const path of ['/api/v1/relayers/evm/transactions', '/api/v1/relayers/evm/transactions/']) {
    const res = await s.request('GET', path);
    assert.equal(res.status, 200, path);
    assert.equal(res.body.data.length, 1);
  }
});

test('per_page=0 returns an empty page with the true total; a deep page and the last partial page work', async (t) => {
  const s = await buildWithRelayers(t);
  await seed(s, 7);
  const zero = await s.request('GET', `${txPath('evm')}?per_page=0`);
  assert.equal(zero.status, 200);
  assert.deepEqual(zero.body.data, []);
  assert.deepEqual(zero.body.pagination, { current_page: 1, per_page: 0, total_items: 7 });
  const deep = await s.request('GET', `${txPath('evm')}?page=3&per_page=3`);
  assert.equal(deep.body.data.length, 1);
  assert.equal(deep.body.data[0].nonce, 0);
  const far = await s.request('GET', `${txPath('evm')}?page=100000&per_page=100`);
  assert.deepEqual(far.body.data, []);
});

test('invalid list queries answer 400 Bad Request naming the parameter', async () => {
  const s = await app();
  const cases: Array<[string, RegExp]> = [
    ['page=0', /'page' must be >= 1/],
    ['page=-1', /'page' must be >= 1/],
    ['page=1.5', /'page' must be integer/],
    ['page=abc', /'page' must be integer/],
    ['per_page=101', /'per_page' must be <= 100/],
    ['per_page=-1', /'per_page' must be >= 0/],
    ['page=1&page=2', /query parameter 'page' must be given once/],
    ['per_page=5&per_page=5', /query parameter 'per_page' must be given once/],
    ['status=lost', /'status' must be one of: pending, sent/],
    ['sort=asc', /unknown field 'sort'/],
  ];
  for (const [query, reason] of cases) {
    const res = await s.request('GET', `${txPath('evm')}?${query}`);
    assert.equal(res.status, 400, query);
    assert.deepEqual(
      { success: res.body.success, data: res.body.data, message: res.body.message },
      { success: false, data: null, message: 'Bad Request' },
    );
    assert.match(res.body.error, reason, query);
  }
});

test('an unknown relayer answers 404 Relayer with ID <id> not found; no token answers 401', async () => {
  const s = await app();
  const res = await s.request('GET', txPath('no-such-relayer'));
  assert.equal(res.status, 404);
  assert.equal(res.body.message, 'Relayer with ID no-such-relayer not found');
  assert.equal(res.body.data, null);
  const unauth = await s.request('GET', txPath('evm'), { auth: false });
  assert.equal(unauth.status, 401);
  assert.equal(unauth.body.message, 'Unauthorized');
});

test('the status filter lists and counts only that status', async (t) => {
  // Stellar transactions stay pending here (no network to relay to), and a cancel of a pending one is final at once.
  const s = await buildWithRelayers(t);
  const ids: string[] = [];
  for (let i = 0; i < 6; i++)
    ids.push((await s.request('POST', txPath('stellar'), { body: stellarBody() })).body.data.id);
  await s.request('DELETE', txPath('stellar', ids[1]!));
  await s.request('DELETE', txPath('stellar', ids[4]!));
  const canceled = await s.request('GET', `${txPath('stellar')}?status=canceled`);
  assert.deepEqual(
    canceled.body.data.map((tx: { id: string }) => tx.id),
    [ids[4], ids[1]],
  );
  assert.equal(canceled.body.pagination.total_items, 2);
  const pending = await s.request('GET', `${txPath('stellar')}?status=pending&per_page=2&page=2`);
  assert.deepEqual(
    pending.body.data.map((tx: { id: string }) => tx.id),
    [ids[2], ids[0]],
  );
  assert.equal(pending.body.pagination.total_items, 4);
  const all = await s.request('GET', txPath('stellar'));
  assert.equal(all.body.pagination.total_items, 6);
});

test('each relayer lists only its own transactions', async (t) => {
  const s = await buildWithRelayers(t);
  await seed(s, 3);
  const other = await s.request('GET', txPath('evm-legacy'));
  assert.deepEqual(other.body.data, []);
  assert.equal(other.body.pagination.total_items, 0);
});
