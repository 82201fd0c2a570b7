// kill -9 of the whole service mid-burst: every acknowledged send survives, nonces stay unique, the outbox still delivers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_KEY, request } from '../helper.ts';
import { FAST_WEBHOOKS, startReceiver, waitFor } from '../webhooks/support.ts';
import { CHAIN_ID, EVM_KEY, devnetNetwork, evmBody, txPath } from '../transactions/fixtures.ts';
import { startService } from './support.ts';

const SENDS = 200;
const IN_FLIGHT = 32;
const KILL_AFTER_ACKS = 60;

test('SIGKILL mid-burst loses no acknowledged send, duplicates no nonce, and the outbox delivers every event after restart', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-kill-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const receiver = await startReceiver(t);
  const configPath = path.join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      networks: [devnetNetwork('sepolia', CHAIN_ID)],
      signers: [{ id: 'evm-signer', type: 'local', development: true, private_key: EVM_KEY }],
      relayers: [
        { id: 'evm', name: 'EVM relayer', network: 'sepolia', signer_id: 'evm-signer', notification_id: 'hook' },
      ],
      notifications: [{ id: 'hook', type: 'webhook', url: receiver.url }],
      plugins: [],
    }),
  );
  const env = {
    API_KEY,
    DATA_DIR: path.join(dir, 'data'),
    CONFIG_PATH: configPath,
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    LOG_LEVEL: 'info',
    ...FAST_WEBHOOKS,
  };

  const first = startService(env);
  t.after(() => first.killHard());
  const url = await first.listening;

  // The burst: 32 sends in flight; the whole process group is killed once 60 are acknowledged.
  const acked: Array<{ id: string; nonce: number }> = [];
  let failed = 0;
  let next = 0;
  let killed: Promise<void> | undefined;
  const worker = async () => {
    while (next < SENDS) {
      next++;
      try {
        const res = await request(url, 'POST', txPath('evm'), { body: evmBody() });
        // Only a 200 is an acknowledgement; anything else promised nothing.
        if (res.status === 200) acked.push({ id: res.body.data.id, nonce: res.body.data.nonce });
        else failed++;
      } catch {
        failed++;
      }
      if (acked.length >= KILL_AFTER_ACKS) killed ??= first.killHard();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  await killed;
  assert.ok(acked.length >= KILL_AFTER_ACKS, `acknowledged ${acked.length}`);
  assert.ok(failed > 0, 'the kill landed mid-burst');
  assert.equal(first.child.signalCode, 'SIGKILL');

  const restartStarted = performance.now();
  const second = startService(env);
  t.after(() => second.killHard());
  const url2 = await second.listening;
  const restartMs = Math.round(performance.now() - restartStarted);

  // Every acknowledged send is in the store, as acknowledged.
  let lost = 0;
  for (const { id, nonce } of acked) {
    const res = await request(url2, 'GET', txPath('evm', id));
    if (res.status !== 200) lost++;
    else assert.equal(res.body.data.nonce, nonce, id);
  }

  // No nonce is used twice across everything that was committed.
  const stored: Array<{ id: string; nonce: number }> = [];
  for (let page = 1; ; page++) {
    const res = await request(url2, 'GET', `${txPath('evm')}?per_page=100&page=${page}`);
    assert.equal(res.status, 200);
    stored.push(...res.body.data);
    if (stored.length >= res.body.pagination.total_items || res.body.data.length === 0) break;
  }
  const nonces = stored.map((tx) => tx.nonce);
  assert.equal(new Set(nonces).size, nonces.length, 'duplicate nonce');
  assert.ok(stored.length >= acked.length);

  // The outbox delivers an event for every stored transaction (at least once; deduplicated by X-Webhook-Id).
  const deliveredFor = () => {
    const byWebhook = new Map<string, string>();
    for (const r of receiver.received) byWebhook.set(String(r.headers['x-webhook-id']), r.body?.payload?.id);
    return new Set(byWebhook.values());
  };
  await waitFor(
    () => stored.every((tx) => deliveredFor().has(tx.id)),
    'a webhook for every stored transaction',
    20_000,
  );
  const deliveries = await request(url2, 'GET', '/api/v1/notifications/hook/deliveries?per_page=100');
  // One event per send, and one more for each that was broadcast (sent → submitted) before the kill or after the restart.
  assert.ok(deliveries.body.pagination.total_items >= stored.length, 'an event per send at least');

  t.diagnostic(
    `acknowledged ${acked.length}, refused or cut ${failed}, stored ${stored.length}, acknowledged writes lost ${lost}, restart ${restartMs} ms`,
  );
  assert.equal(lost, 0, 'acknowledged writes lost');
  assert.equal(await second.stop(), 0);
});
