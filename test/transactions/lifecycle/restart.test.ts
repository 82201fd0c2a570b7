// The real service process (node src/main.ts) killed with transactions in flight: the restarted one resumes every
// one of them from the store (durable jobs) and they all end final; dropped ones are broadcast again.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_KEY, request } from '../../helper.ts';
import { startService } from '../../faults/support.ts';
import { ANVIL_KEYS, startAnvil } from '../../support/anvil.ts';
import { RELAYER, RELAYER_ADDRESS, TO, txPath, waitFor } from './support.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const SENDS = 20;

test('kill -9 with transactions in flight: after a restart every one ends confirmed, dropped ones included', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-restart-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = path.join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      networks: [anvil.network('anvil')],
      signers: [{ id: 'key', type: 'local', development: true, private_key: ANVIL_KEYS[0] }],
      relayers: [{ id: RELAYER, name: 'restart', network: 'anvil', signer_id: 'key' }],
      notifications: [],
      plugins: [],
    }),
  );
  const env = {
    API_KEY,
    DATA_DIR: path.join(dir, 'data'),
    CONFIG_PATH: configPath,
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
  };
  const startNonce = await anvil.pendingNonce(RELAYER_ADDRESS);
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));

  const first = startService(env);
  t.after(() => first.killHard());
  const url = await first.listening;
  const ids: string[] = [];
  for (let i = 0; i < SENDS; i++) {
    const res = await request(url, 'POST', txPath(), { body: { to: TO, value: i + 1, speed: 'fast' } });
    assert.equal(res.status, 200, res.text);
    ids.push(res.body.data.id);
  }
  await waitFor(
    () => anvil.txpool(),
    (pool) =>
      Object.keys(pool.pending[RELAYER_ADDRESS.toLowerCase()] ?? pool.pending[RELAYER_ADDRESS] ?? {}).length === SENDS,
    20_000,
    'every send in the pool',
  );
  await first.killHard();

  // While it is down, the node loses half of them (evicted, or the node restarted).
  const pool = await anvil.txpool();
  const ours = Object.values(pool.pending[RELAYER_ADDRESS.toLowerCase()] ?? pool.pending[RELAYER_ADDRESS] ?? {});
  for (const [i, tx] of ours.entries()) if (i % 2 === 1) await anvil.dropTransaction(tx.hash);

  const second = startService(env);
  t.after(() => second.killHard());
  const url2 = await second.listening;
  await anvil.setAutomine(true);
  await anvil.mine(1);
  const statuses = await waitFor(
    async () => {
      await anvil.mine(1);
      return Promise.all(ids.map(async (id) => (await request(url2, 'GET', txPath(id))).body.data.status as string));
    },
    (all) => all.every((s) => s === 'confirmed'),
    60_000,
    'every transaction confirmed',
  );
  assert.equal(statuses.length, SENDS);
  assert.equal(
    await anvil.pendingNonce(RELAYER_ADDRESS),
    startNonce + SENDS,
    'contiguous nonces, none skipped or doubled',
  );
});
