// Issue 44: a relayer's key pool as the config file and the API declare it (`signer_ids`, `max_pending_per_key`):
// what is accepted, and the clear refusal of everything else (an unknown signer, one named twice, `signer_id` not the
// first of `signer_ids`, an empty list, a limit without a pool, one key named under two ids); Solana and Stellar pools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfigFile, type ConfigFile } from '../../src/config/config.ts';
import { build } from '../helper.ts';

const KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
];
const signers = KEYS.map((k, i) => ({ id: `k${i}`, type: 'local', development: true, private_key: k }));
const network = {
  type: 'evm',
  network: 'chain',
  chain_id: 31337,
  required_confirmations: 1,
  symbol: 'ETH',
  average_blocktime_ms: 1000,
  rpc_urls: ['http://127.0.0.1:9'],
  features: ['eip1559'],
};
const solana = { type: 'solana', network: 'sol', rpc_urls: ['http://127.0.0.1:9'] };

function load(t: { after(fn: () => void): void }, relayer: Record<string, unknown>): ConfigFile {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-pools-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({ networks: [network, solana], signers, relayers: [{ id: 'r', name: 'r', ...relayer }] }),
  );
  return loadConfigFile(file);
}

test('config: signer_ids alone names the pool and its first key becomes signer_id; both given, they agree', (t) => {
  const r = load(t, { network: 'chain', signer_ids: ['k0', 'k1', 'k2'], max_pending_per_key: 8 }).relayers[0]!;
  assert.equal(r.signer_id, 'k0');
  assert.deepEqual(r.signer_ids, ['k0', 'k1', 'k2']);
  assert.equal(load(t, { network: 'chain', signer_id: 'k1', signer_ids: ['k1', 'k2'] }).relayers[0]!.signer_id, 'k1');
  assert.equal(
    load(t, { network: 'chain', signer_id: 'k0' }).relayers[0]!.signer_ids,
    undefined,
    'one signer: the reference shape',
  );
});

test('config: a bad pool is refused with the field and the reason', (t) => {
  const refused = (relayer: Record<string, unknown>, message: RegExp) => assert.throws(() => load(t, relayer), message);
  refused({ network: 'chain', signer_ids: ['k0', 'nope'] }, /relayers\.0\.signer_ids\.1: unknown signer 'nope'/);
  refused(
    { network: 'chain', signer_ids: ['k0', 'k1', 'k0'] },
    /'relayers\.0\.signer_ids\.2': signer 'k0' is named twice/,
  );
  refused(
    { network: 'chain', signer_id: 'k2', signer_ids: ['k0', 'k1'] },
    /'relayers\.0\.signer_id' \('k2'\) must be the first of 'relayers\.0\.signer_ids' \('k0'\)/,
  );
  refused({ network: 'chain', signer_ids: [] }, /signer_ids.*(must NOT have fewer than 1 items|at least one signer)/);
  refused(
    { network: 'chain' },
    /missing required field 'relayers\.0\.signer_id' \(or 'relayers\.0\.signer_ids' for a key pool\)/,
  );
  refused({ network: 'sol', signer_ids: ['k1', 'k1'] }, /'relayers\.0\.signer_ids\.1': signer 'k1' is named twice/);
  refused({ network: 'sol', signer_ids: ['k0', 'nope'] }, /relayers\.0\.signer_ids\.1: unknown signer 'nope'/);
  refused(
    { network: 'chain', signer_id: 'k0', max_pending_per_key: 4 },
    /'relayers\.0\.max_pending_per_key' applies to key pools only/,
  );
  refused({ network: 'chain', signer_ids: ['k0', 'k1'], max_pending_per_key: 0 }, /max_pending_per_key/);
});

test('API: a pool is created with signer_ids, shows its lanes, takes a new max_pending_per_key; bad pools answer 400 with the reason', async (t) => {
  const s = await build(t, {
    config: { networks: [network as never], signers: signers as never, relayers: [], notifications: [], plugins: [] },
  });
  const create = (body: Record<string, unknown>) =>
    s.request('POST', '/api/v1/relayers', {
      body: { name: 'p', network: 'chain', network_type: 'evm', paused: false, ...body },
    });

  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ signer_ids: ['k0', 'k0'] }, /^'signer_ids\.1': signer 'k0' is named twice/],
    [{ signer_id: 'k1', signer_ids: ['k0', 'k1'] }, /^'signer_id' \('k1'\) must be the first of 'signer_ids'/],
    [{ signer_ids: [] }, /^'signer_ids' must NOT have fewer than 1 items/],
    [{}, /^missing required field 'signer_id' \(or 'signer_ids' for a key pool\)/],
    [{ signer_id: 'k0', max_pending_per_key: 3 }, /'max_pending_per_key' applies to key pools only/],
  ];
  for (const [body, reason] of bad) {
    const r = await create(body);
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.match(r.body.error, reason, JSON.stringify(body));
  }
  // An unknown signer in a pool is what it is for one signer: 404 SIGNER_NOT_FOUND, naming it.
  const unknown = await create({ signer_ids: ['k0', 'nope'] });
  assert.equal(unknown.status, 404, unknown.text);
  assert.match(unknown.body.error, /signer 'nope' not found/);

  const made = await create({ id: 'pool', signer_ids: ['k0', 'k1', 'k2'], max_pending_per_key: 4 });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.data.signer_id, 'k0');
  const got = (await s.request('GET', '/api/v1/relayers/pool')).body.data;
  assert.deepEqual(
    got.lanes.map((l: any) => [l.signer_id, l.max_pending, l.pending, l.state]),
    [
      ['k0', 4, 0, 'active'],
      ['k1', 4, 0, 'active'],
      ['k2', 4, 0, 'active'],
    ],
  );
  assert.equal(got.lanes[0].balance, null, 'no node answers here');

  const patched = await s.request('PATCH', '/api/v1/relayers/pool', { body: { max_pending_per_key: 9 } });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(
    (await s.request('GET', '/api/v1/relayers/pool')).body.data.lanes.map((l: any) => l.max_pending),
    [9, 9, 9],
  );

  // The pool's keys are taken: another relayer on the network cannot use one of them, nor can the signer be deleted.
  for (const body of [{ signer_id: 'k0' }, { signer_id: 'k2' }, { signer_ids: ['k1', 'k0'] }]) {
    const again = await create(body);
    assert.equal(again.status, 400, again.text);
    assert.match(again.body.error, /signer 'k[0-2]' is already in use by relayer 'pool'/);
  }
  const removed = await s.request('DELETE', '/api/v1/signers/k2');
  assert.equal(removed.status, 400, removed.text);
  assert.match(removed.body.error, /being used by 1 relayer\(s\): pool/);
});

test('Solana and Stellar pools: accepted from the config file and the API, their lanes in the record; bad ones refused naming the field', async (t) => {
  const sol = load(t, { network: 'sol', signer_ids: ['k0', 'k1'] }).relayers[0]!;
  assert.deepEqual([sol.signer_id, sol.signer_ids], ['k0', ['k0', 'k1']]);
  const s = await build(t, {
    config: { networks: [solana as never], signers: signers as never, relayers: [], notifications: [], plugins: [] },
  });
  const create = (body: Record<string, unknown>) =>
    s.request('POST', '/api/v1/relayers', {
      body: { name: 'p', network: 'sol', network_type: 'solana', paused: false, ...body },
    });
  const twice = await create({ signer_ids: ['k0', 'k1', 'k0'] });
  assert.equal(twice.status, 400, twice.text);
  assert.match(twice.body.error, /^'signer_ids\.2': signer 'k0' is named twice/);
  const made = await create({ id: 'fee-payers', signer_ids: ['k0', 'k1'], max_pending_per_key: 32 });
  assert.equal(made.status, 201, made.text);
  const got = (await s.request('GET', '/api/v1/relayers/fee-payers')).body.data;
  assert.equal(got.address, got.lanes[0].address);
  assert.deepEqual(
    got.lanes.map((l: any) => [l.signer_id, l.max_pending, l.pending, l.state, l.balance]),
    [
      ['k0', 32, 0, 'active', null],
      ['k1', 32, 0, 'active', null],
    ],
  );
  assert.notEqual(got.lanes[0].address, got.lanes[1].address);
  assert.doesNotMatch(got.lanes[0].address, /^0x/, 'Solana addresses (base58)');
});
