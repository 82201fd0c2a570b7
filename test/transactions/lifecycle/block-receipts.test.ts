// 600 sends mined in one block, more than one check run walks (WINDOW): the runs after the first settle theirs from
// that block read again, not from one eth_getTransactionReceipt per transaction. Counted by a proxy in front of a real
// anvil.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAnvil } from '../../support/anvil.ts';
import { buildOn, TO, txPath, waitFor } from './support.ts';
import { WINDOW } from '../../../src/domain/transactions/evm/check.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const SENDS = WINDOW * 2 + 88;

/** Forwards JSON-RPC to anvil and counts the methods asked, batch items one by one. */
async function countingProxy(target: string) {
  const counts = new Map<string, number>();
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const parsed = JSON.parse(body) as { method: string } | Array<{ method: string }>;
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) counts.set(item.method, (counts.get(item.method) ?? 0) + 1);
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  after(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts };
}

test(`${SENDS} transactions mined in one block are settled with block reads, not a receipt lookup each`, async (t) => {
  const proxy = await countingProxy(anvil.url);
  await anvil.setAutomine(false);
  const s = await buildOn(t, anvil, { network: { rpc_urls: [{ url: proxy.url, weight: 100 }] } });
  const total = async (status: string) => (await s.request('GET', `${txPath()}?status=${status}&per_page=1`)).body.pagination.total_items as number;
  const answers = await Promise.all(Array.from({ length: SENDS }, (_, i) => s.request('POST', txPath(), { body: { to: TO, value: i + 1, speed: 'fast', gas_limit: 21_000 } })));
  for (const a of answers) assert.equal(a.status, 200, a.text);
  await waitFor(() => total('submitted'), (n) => n === SENDS, 60_000, 'every send in the pool');
  proxy.counts.clear();
  await anvil.mine(1);
  await waitFor(() => total('confirmed'), (n) => n === SENDS, 60_000, 'every send confirmed');
  const lookups = proxy.counts.get('eth_getTransactionReceipt') ?? 0;
  assert.ok((proxy.counts.get('eth_getBlockReceipts') ?? 0) >= 2, `the block read by more than one run: ${JSON.stringify([...proxy.counts])}`);
  assert.ok(lookups <= 16, `${lookups} receipts looked up by hash: ${JSON.stringify([...proxy.counts])}`);
});
