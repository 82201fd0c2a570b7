// Low balance, before it jams (issue 26), on a real anvil with a real webhook receiver: the relayer's balance checked
// against min_balance, one relayer_low_balance event per crossing down, the gauges, the status route's count of sends
// the balance still covers, the reference's system_disabled / disabled_reason under min_balance (sends refused with
// its 403), recovery once funded;
// and the stage latency histograms after a confirmed send.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { build, type TestServer } from '../helper.ts';
import { ANVIL_ADDRESSES, ANVIL_KEYS, startAnvil } from '../support/anvil.ts';
import { FAST_WEBHOOKS, startReceiver } from '../webhooks/support.ts';
import { waitFor } from '../transactions/lifecycle/support.ts';

const anvil = await startAnvil();
after(() => anvil.stop());

const ETH = 10n ** 18n;
const RELAYER = 'watched';
const ADDRESS = ANVIL_ADDRESSES[1]!;
const base = `/api/v1/relayers/${RELAYER}`;

async function start(t: Parameters<typeof build>[0], hookUrl: string): Promise<TestServer> {
  return build(t, {
    env: FAST_WEBHOOKS,
    config: {
      networks: [anvil.network('anvil')],
      signers: [
        { id: 'key', type: 'local', development: true, private_key: ANVIL_KEYS[1] },
        { id: 'spare', type: 'local', development: true, private_key: ANVIL_KEYS[2] },
      ],
      relayers: [
        {
          id: RELAYER,
          name: 'watched',
          network: 'anvil',
          signer_id: 'key',
          notification_id: 'hook',
          policies: { min_balance: 1e18 },
        },
      ],
      notifications: [{ id: 'hook', type: 'webhook', url: hookUrl }],
      plugins: [],
    },
  });
}

const setBalance = (wei: bigint) => anvil.rpc('anvil_setBalance', [ADDRESS, `0x${wei.toString(16)}`]);
const status = async (s: TestServer) => (await s.request('GET', `${base}/status`)).body.data;

/** Moves the relayer's next balance check to now (it runs every minute) and waits for its outcome. */
async function checkNow(s: TestServer): Promise<Record<string, any>> {
  const before = (await status(s)).balance_watch?.checked_at;
  await s.app.store.repos.jobs.schedule({ kind: 'relayer.balance', subject: RELAYER, dueAt: Date.now() });
  return waitFor(
    () => status(s),
    (st) => st.balance_watch !== null && st.balance_watch.checked_at !== before,
    20_000,
    'a new balance check',
  );
}

const waitStatus = (s: TestServer, id: string, statuses: string[], timeoutMs = 30_000) =>
  waitFor(
    async () => (await s.request('GET', `${base}/transactions/${id}`)).body.data,
    (tx) => statuses.includes(tx?.status),
    timeoutMs,
    `status ${statuses.join('/')}`,
  );

const metric = async (s: TestServer, line: RegExp) => {
  const text = (await s.request('GET', '/metrics')).text;
  return line.exec(text)?.[1];
};

test('low balance: one relayer_low_balance event per crossing, gauges, sends covered, disabled under min_balance (sends refused), recovered once funded', async (t) => {
  const receiver = await startReceiver(t);
  const s = await start(t, receiver.url);
  const lowEvents = () => receiver.received.filter((r) => r.body?.event === 'relayer_low_balance');
  // The check due at start first: a check forced while one runs would be folded into it.
  await waitFor(
    () => status(s),
    (st) => st.balance_watch !== null,
    20_000,
    'the first balance check',
  );

  await setBalance(10n * ETH);
  const ok = await checkNow(s);
  assert.equal(ok.balance_watch.level, 'ok');
  assert.equal(ok.balance_watch.min_balance, String(ETH));
  assert.equal(ok.balance_watch.warning_balance, String(2n * ETH));
  const cost = BigInt(ok.balance_watch.send_cost);
  assert.ok(cost > 0n, 'a plain transfer at the network price');
  assert.equal(ok.balance_watch.sends_covered, Number((10n * ETH - ETH) / cost));
  assert.equal(await metric(s, /^relaybox_relayer_low_balance\{relayer="watched"\} (\d+)$/m), '0');
  assert.equal(await metric(s, /^relaybox_relayer_balance\{relayer="watched"\} (\S+)$/m), String(Number(10n * ETH)));

  await setBalance((3n * ETH) / 2n);
  const low = await checkNow(s);
  assert.equal(low.balance_watch.level, 'low');
  assert.equal(low.system_disabled, false, 'still sending above min_balance');
  await waitFor(
    async () => lowEvents().length,
    (n) => n === 1,
    20_000,
    'the low-balance webhook',
  );
  const event = lowEvents()[0]!.body;
  assert.equal(event.payload.payload_type, 'relayer_low_balance');
  assert.equal(event.payload.level, 'low');
  assert.equal(event.payload.balance, String((3n * ETH) / 2n));
  assert.equal(event.payload.unit, 'wei');
  assert.equal(event.payload.relayer.id, RELAYER);
  assert.equal(await metric(s, /^relaybox_relayer_low_balance\{relayer="watched"\} (\d+)$/m), '1');

  // Still low: checked again, nothing sent again.
  await checkNow(s);
  await setBalance(ETH / 2n);
  const below = await checkNow(s);
  assert.equal(below.balance_watch.level, 'below_min_balance');
  assert.equal(below.balance_watch.sends_covered, 0);
  assert.equal(below.system_disabled, true);
  assert.deepEqual(below.disabled_reason, { type: 'BalanceCheckFailed', details: 'Insufficient balance' });
  const relayer = (await s.request('GET', base)).body.data;
  assert.deepEqual(
    [relayer.system_disabled, relayer.disabled_reason],
    [true, { type: 'BalanceCheckFailed', details: 'Insufficient balance' }],
  );
  await waitFor(
    async () => lowEvents().length,
    (n) => n === 2,
    20_000,
    'the second crossing',
  );
  assert.equal(lowEvents()[1]!.body.payload.level, 'below_min_balance');
  assert.equal(lowEvents()[1]!.body.payload.relayer.system_disabled, true);
  assert.equal(await metric(s, /^relaybox_relayer_low_balance\{relayer="watched"\} (\d+)$/m), '2');

  // Disabled refuses sends even once funded, until a check passes (the reference's rule): the funds are there, so
  // the 403 can only be the disabled state's.
  await setBalance(5n * ETH);
  const send = () =>
    s.request('POST', `${base}/transactions`, { body: { to: ANVIL_ADDRESSES[2], value: 1, speed: 'fast' } });
  const refused = await send();
  assert.equal(refused.status, 403, refused.text);
  assert.deepEqual(refused.body, {
    success: false,
    data: null,
    error: 'Relayer disabled',
    message: 'Relayer disabled',
  });
  const back = await checkNow(s);
  assert.equal(back.balance_watch.level, 'ok');
  assert.equal(back.system_disabled, false);
  assert.equal(back.disabled_reason, null);
  const sent = await send();
  assert.equal(sent.status, 200, sent.text);
  assert.equal(await metric(s, /^relaybox_relayer_low_balance\{relayer="watched"\} (\d+)$/m), '0');
  assert.equal(lowEvents().length, 2, 'one event per crossing down, none on the way back up');
});

test('stage latency: a confirmed send is observed in each stage, with its re-prices and re-broadcasts, by network', async (t) => {
  await setBalance(10n * ETH);
  const s = await start(t, 'http://127.0.0.1:9/hook');
  const sent = await s.request('POST', `${base}/transactions`, {
    body: { to: ANVIL_ADDRESSES[2], value: 1, speed: 'fast' },
  });
  assert.equal(sent.status, 200, sent.text);
  await waitStatus(s, sent.body.data.id, ['confirmed']);
  const count = (stage: string) =>
    metric(
      s,
      new RegExp(`^relaybox_transaction_stage_seconds_count\\{network="anvil",stage="${stage}"\\} (\\d+)$`, 'm'),
    );
  await waitFor(
    () => count('mined_to_confirmed'),
    (n) => n === '1',
    10_000,
    'the confirmed stage',
  );
  for (const stage of ['created_to_sent', 'sent_to_submitted', 'submitted_to_mined', 'mined_to_confirmed'])
    assert.equal(await count(stage), '1', stage);
  assert.equal(await metric(s, /^relaybox_transaction_reprices_count\{network="anvil"\} (\d+)$/m), '1');
  assert.equal(
    await metric(s, /^relaybox_transaction_reprices_bucket\{le="0",network="anvil"\} (\d+)$/m),
    '1',
    'signed once',
  );
  assert.equal(await metric(s, /^relaybox_transaction_rebroadcasts_count\{network="anvil"\} (\d+)$/m), '1');
  // After the send the relayer's balance is checked again on its own (its transactions moved).
  const watch = await waitFor(
    () => status(s),
    (st) => st.balance_watch !== null,
    20_000,
    'a balance check after the send',
  );
  assert.equal(watch.balance_watch.level, 'ok');
});

test('a relayer created through the API gets its balance checked too', async (t) => {
  const s = await start(t, 'http://127.0.0.1:9/hook');
  const created = await s.request('POST', '/api/v1/relayers', {
    body: {
      id: 'later',
      name: 'later',
      network: 'anvil',
      network_type: 'evm',
      paused: false,
      signer_id: 'spare',
      policies: { min_balance: 1 },
    },
  });
  assert.equal(created.status, 201, created.text);
  const later = await waitFor(
    async () => (await s.request('GET', '/api/v1/relayers/later/status')).body.data,
    (st) => st.balance_watch !== null,
    20_000,
    "the new relayer's first check",
  );
  assert.equal(later.balance_watch.balance, later.balance);
  assert.equal(later.balance_watch.min_balance, '1');
});
