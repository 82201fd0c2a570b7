// Relayer chain routes on EVM through a real HTTP server and a real anvil: status, balance, rpc passthrough, EIP-191 and EIP-712 signing.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { concatHex, hashMessage, keccak256, recoverAddress, recoverMessageAddress, type Hex } from 'viem';
import { build, type TestServer } from '../helper.ts';
import { startAnvil, type TestAnvil } from '../support/anvil.ts';
import { EVM_ADDRESS, EVM_KEY, SOLANA_ADDRESS, STELLAR_ADDRESS } from '../transactions/fixtures.ts';
import type { TransactionStatus } from '../../src/domain/types.ts';

let anvil: TestAnvil;
before(async () => {
  anvil = await startAnvil();
});
after(() => anvil.stop());

const base = (id: string) => `/api/v1/relayers/${id}`;

function config() {
  return {
    networks: [
      anvil.network('anvil'),
      { type: 'solana' as const, network: 'solana-devnet', rpc_urls: [{ url: 'http://127.0.0.1:1', weight: 100 }] },
      {
        type: 'stellar' as const,
        network: 'stellar-testnet',
        passphrase: 'Test SDF Network ; September 2015',
        rpc_urls: [{ url: 'http://127.0.0.1:1', weight: 100 }],
      },
    ],
    signers: [
      { id: 'evm-key', type: 'local' as const, private_key: EVM_KEY },
      { id: 'solana-address', type: 'local' as const, address: SOLANA_ADDRESS },
      { id: 'stellar-address', type: 'local' as const, address: STELLAR_ADDRESS },
    ],
    relayers: [
      { id: 'evm', name: 'EVM', network: 'anvil', signer_id: 'evm-key' },
      { id: 'evm-paused', name: 'Paused EVM', network: 'anvil', signer_id: 'evm-key', paused: true },
      { id: 'solana', name: 'Solana', network: 'solana-devnet', signer_id: 'solana-address' },
      { id: 'stellar', name: 'Stellar', network: 'stellar-testnet', signer_id: 'stellar-address' },
    ],
    notifications: [],
  };
}

const start = (t: Parameters<typeof build>[0]) => build(t, { config: config() });

/** A stored transaction of the relayer in the given status (the store itself, as the send path would leave it). */
async function stored(s: TestServer, status: TransactionStatus, confirmedAt: string | null = null): Promise<void> {
  const now = new Date().toISOString();
  const record = {
    id: randomUUID(),
    relayer_id: 'evm',
    status,
    status_reason: null,
    created_at: now,
    sent_at: null,
    confirmed_at: confirmedAt,
    to: EVM_ADDRESS,
    value: '1',
  };
  await s.app.store.repos.transactions.insert(record, Date.now(), null);
}

function assertNoKey(s: TestServer, ...texts: string[]): void {
  const key = EVM_KEY.slice(2);
  for (const text of [...texts, s.rawLogs()]) assert.ok(!text.toLowerCase().includes(key), 'the private key leaked');
}

test('balance answers the chain balance in wei as an exact JSON integer', async (t) => {
  const s = await start(t);
  const res = await s.request('GET', `${base('evm')}/balance`);
  assert.equal(res.status, 200, res.text);
  const wei = BigInt(await anvil.rpc<string>('eth_getBalance', [EVM_ADDRESS, 'latest']));
  assert.ok(wei > BigInt(Number.MAX_SAFE_INTEGER), 'anvil funds the account with more than 2^53 wei');
  assert.equal(res.body.data.unit, 'wei');
  // Above 2^53: the JSON carries the integer's exact digits (JSON.parse would round it).
  assert.match(res.text, new RegExp(`"balance":${wei}[,}]`));
});

test('status answers the reference EVM shape: balance, pending count, last confirmed, paused, system_disabled, nonce', async (t) => {
  const s = await start(t);
  const empty = await s.request('GET', `${base('evm')}/status`);
  assert.equal(empty.status, 200, empty.text);
  const wei = BigInt(await anvil.rpc<string>('eth_getBalance', [EVM_ADDRESS, 'latest']));
  const { disabled_reason, rpc, balance_watch, ...reference } = empty.body.data;
  assert.deepEqual(reference, {
    network_type: 'evm',
    balance: String(wei),
    pending_transactions_count: 0,
    last_confirmed_transaction_timestamp: null,
    system_disabled: false,
    paused: false,
    nonce: '0',
  });
  // The reference's fields first, in its order; ours after them.
  assert.deepEqual(Object.keys(empty.body.data), [
    'network_type',
    'balance',
    'pending_transactions_count',
    'last_confirmed_transaction_timestamp',
    'system_disabled',
    'paused',
    'nonce',
    'disabled_reason',
    'rpc',
    'balance_watch',
  ]);
  assert.equal(disabled_reason, null);
  assert.deepEqual(rpc, { available: true, urls: 1, urls_up: 1 });
  assert.ok(balance_watch === null || balance_watch.level === 'ok', JSON.stringify(balance_watch));

  for (const status of ['pending', 'sent', 'submitted', 'mined', 'failed'] as const) await stored(s, status);
  await stored(s, 'confirmed', '2026-01-02T00:00:02.000Z');
  await stored(s, 'confirmed', '2026-01-01T00:00:01.000Z');
  const busy = (await s.request('GET', `${base('evm')}/status`)).body.data;
  assert.equal(busy.pending_transactions_count, 3, 'pending, sent and submitted, as the reference counts');
  assert.equal(busy.last_confirmed_transaction_timestamp, '2026-01-02T00:00:02.000Z');

  const paused = (await s.request('GET', `${base('evm-paused')}/status`)).body.data;
  assert.equal(paused.paused, true);
});

test('status and balance of an unknown relayer answer 404 with the spec text; other methods 405', async (t) => {
  const s = await start(t);
  for (const path of ['status', 'balance']) {
    const res = await s.request('GET', `${base('ghost')}/${path}`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, {
      success: false,
      data: null,
      error: "relayer 'ghost' not found",
      message: 'Relayer with ID ghost not found',
    });
    const wrong = await s.request('POST', `${base('evm')}/${path}`, { body: {} });
    assert.equal(wrong.status, 405);
  }
  for (const path of ['rpc', 'sign', 'sign-typed-data', 'sign-transaction']) {
    const res = await s.request('POST', `${base('ghost')}/${path}`, {
      body: { method: 'eth_blockNumber', message: 'x' },
    });
    assert.equal(res.status, 404, path);
    assert.equal((await s.request('GET', `${base('evm')}/${path}`)).status, 405, path);
  }
});

test('rpc passes reads to the node and answers raw JSON-RPC with the request id', async (t) => {
  const s = await start(t);
  const res = await s.request('POST', `${base('evm')}/rpc`, {
    body: { jsonrpc: '2.0', id: 7, method: 'eth_getBalance', params: [EVM_ADDRESS, 'latest'] },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, {
    jsonrpc: '2.0',
    result: await anvil.rpc<string>('eth_getBalance', [EVM_ADDRESS, 'latest']),
    id: 7,
  });

  const chainId = await s.request('POST', `${base('evm')}/rpc`, { body: { id: 'abc', method: 'eth_chainId' } });
  assert.deepEqual(chainId.body, { jsonrpc: '2.0', result: '0x7a69', id: 'abc' });
  const noId = await s.request('POST', `${base('evm')}/rpc`, { body: { method: 'eth_blockNumber', params: [] } });
  assert.equal(noId.body.id, 1, 'an absent id is 1, as the reference');
  const nullId = await s.request('POST', `${base('evm')}/rpc`, { body: { id: null, method: 'eth_blockNumber' } });
  assert.ok(!('id' in nullId.body), 'a null id is left out, as the reference');
  assert.match(nullId.body.result, /^0x[0-9a-f]+$/);
});

test("rpc answers the node's own JSON-RPC error as it sent it, with status 200", async (t) => {
  const s = await start(t);
  const res = await s.request('POST', `${base('evm')}/rpc`, {
    body: { jsonrpc: '2.0', id: 3, method: 'eth_getBalance', params: ['not-an-address', 'latest'] },
  });
  assert.equal(res.status, 200, res.text);
  const direct = await anvil.rpc('eth_getBalance', ['not-an-address', 'latest']).then(
    () => assert.fail('anvil accepted a bad address'),
    (err: { code: number }) => err,
  );
  assert.equal(res.body.id, 3);
  assert.equal(res.body.error.code, direct.code);
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(res.body.error.description, res.body.error.message);
  assert.ok(!('result' in res.body));
});

test('rpc refuses writes and node administration with a JSON-RPC error naming where to go instead', async (t) => {
  const s = await start(t);
  const raw = await anvil.signed(EVM_KEY, { to: EVM_ADDRESS, value: 1n });
  const before = await anvil.pendingNonce(EVM_ADDRESS);
  const write = await s.request('POST', `${base('evm')}/rpc`, {
    body: { id: 1, method: 'eth_sendRawTransaction', params: [raw] },
  });
  assert.equal(write.status, 200);
  assert.equal(write.body.error.code, -32601);
  assert.equal(write.body.error.message, 'Method not found');
  assert.match(
    write.body.error.description,
    /method 'eth_sendRawTransaction' is not passed through.*POST \/api\/v1\/relayers\/\{relayer_id\}\/transactions/,
  );
  assert.equal(await anvil.pendingNonce(EVM_ADDRESS), before, 'nothing reached the node');
  for (const method of ['anvil_setBalance', 'debug_traceTransaction', 'eth_accounts', 'admin_peers']) {
    const res = await s.request('POST', `${base('evm')}/rpc`, { body: { id: 1, method, params: [] } });
    assert.equal(res.body.error.code, -32601, method);
    assert.match(
      res.body.error.description,
      new RegExp(`method '${method}' is not available .* only evm read methods`),
    );
  }
});

test('rpc: bad input answers 400 in the envelope with the reason; a paused relayer answers 403', async (t) => {
  const s = await start(t);
  const cases: Array<[unknown, RegExp]> = [
    [{ id: 1 }, /missing required field 'method'/],
    [{ method: '' }, /'method' must NOT have fewer than 1 characters/],
    [{ method: 5 }, /'method' must be string/],
    [{ method: 'eth_chainId', params: 'x' }, /'params' must be an array or an object/],
    [{ method: 'eth_chainId', id: { a: 1 } }, /'id' must be a string, an integer or null/],
    [{ method: 'eth_chainId', id: 1.5 }, /'id' must be a string, an integer or null/],
    [{ method: 'eth_chainId', jsonrpc: '1.0' }, /'jsonrpc' must be equal to constant/],
    [{ method: 'eth_chainId', extra: 1 }, /unknown field 'extra'/],
    [[{ method: 'eth_chainId' }], /batch requests \(a JSON array\) are not supported/],
    ['eth_chainId', /must be object/],
  ];
  for (const [body, reason] of cases) {
    const res = await s.request('POST', `${base('evm')}/rpc`, { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.success, false);
    assert.equal(res.body.message, 'Bad Request');
    assert.match(res.body.error, reason, JSON.stringify(body));
  }
  const none = await s.request('POST', `${base('evm')}/rpc`);
  assert.equal(none.status, 400);
  assert.match(none.body.error, /a JSON request body is required/);
  const paused = await s.request('POST', `${base('evm-paused')}/rpc`, { body: { method: 'eth_chainId' } });
  assert.equal(paused.status, 403);
  assert.deepEqual(paused.body, { success: false, data: null, error: 'Relayer paused', message: 'Relayer paused' });
});

test('sign answers an EIP-191 signature by the relayer key, split as the reference (r, s, v, sig; no 0x)', async (t) => {
  const s = await start(t);
  const message = 'Relaybox says hello — ünïcode included';
  const res = await s.request('POST', `${base('evm')}/sign`, { body: { message } });
  assert.equal(res.status, 200, res.text);
  const { r, s: sPart, v, sig } = res.body.data;
  assert.match(r, /^[0-9a-f]{64}$/);
  assert.match(sPart, /^[0-9a-f]{64}$/);
  assert.ok(v === 27 || v === 28);
  assert.equal(sig, `${r}${sPart}${v.toString(16)}`);
  assert.equal(await recoverMessageAddress({ message, signature: `0x${sig}` }), EVM_ADDRESS);
  const empty = await s.request('POST', `${base('evm')}/sign`, { body: { message: '' } });
  assert.equal(await recoverMessageAddress({ message: '', signature: `0x${empty.body.data.sig}` }), EVM_ADDRESS);
  assert.notEqual(hashMessage(''), hashMessage(message));
  assertNoKey(s, res.text, empty.text);
});

test('sign-typed-data signs keccak256(0x1901 ‖ domain separator ‖ struct hash) with the relayer key', async (t) => {
  const s = await start(t);
  const domain = keccak256('0x01');
  const struct = keccak256('0x02');
  for (const [ds, hs] of [
    [domain, struct],
    [domain.slice(2), struct.slice(2).toUpperCase()],
  ] as const) {
    const res = await s.request('POST', `${base('evm')}/sign-typed-data`, {
      body: { domain_separator: ds, hash_struct_message: hs },
    });
    assert.equal(res.status, 200, res.text);
    const hash = keccak256(concatHex(['0x1901', domain, struct]));
    assert.equal(await recoverAddress({ hash, signature: `0x${res.body.data.sig}` as Hex }), EVM_ADDRESS);
    assert.ok(res.body.data.v === 27 || res.body.data.v === 28);
  }
});

test('sign and sign-typed-data refuse bad input with the field and the rule named', async (t) => {
  const s = await start(t);
  const typed: Array<[unknown, RegExp]> = [
    [
      { domain_separator: '0x12', hash_struct_message: keccak256('0x02') },
      /'domain_separator' must be 32 bytes \(64 hex digits\), got 1 bytes/,
    ],
    [
      { domain_separator: keccak256('0x01'), hash_struct_message: `0x${'zz'.repeat(32)}` },
      /'hash_struct_message' must be hex: non-hexadecimal character 'z' at position 0/,
    ],
    [{ domain_separator: keccak256('0x01') }, /missing required field 'hash_struct_message'/],
    [{ domain_separator: 1, hash_struct_message: 2 }, /'domain_separator' must be string/],
    [
      { domain_separator: keccak256('0x01'), hash_struct_message: `${keccak256('0x02')}0` },
      /'hash_struct_message' must NOT have more than 66 characters/,
    ],
  ];
  for (const [body, reason] of typed) {
    const res = await s.request('POST', `${base('evm')}/sign-typed-data`, { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.body.error, reason);
  }
  const sign: Array<[unknown, RegExp]> = [
    [{}, /missing required field 'message'/],
    [{ message: 42 }, /'message' must be string/],
    [{ message: 'x', encoding: 'hex' }, /unknown field 'encoding'/],
    [['x'], /the body must be a JSON object/],
  ];
  for (const [body, reason] of sign) {
    const res = await s.request('POST', `${base('evm')}/sign`, { body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.body.error, reason);
  }
  for (const path of ['sign', 'sign-typed-data']) {
    const paused = await s.request('POST', `${base('evm-paused')}/${path}`, {
      body: { message: 'x', domain_separator: keccak256('0x01'), hash_struct_message: keccak256('0x02') },
    });
    assert.equal(paused.status, 400, 'the body is validated first (an unknown field for one of the two)');
  }
  const paused = await s.request('POST', `${base('evm-paused')}/sign`, { body: { message: 'x' } });
  assert.equal(paused.status, 403);
  assert.equal(paused.body.error, 'Relayer paused');
  assertNoKey(s);
});

test('non-EVM relayers refuse sign and sign-typed-data, and EVM refuses sign-transaction, with the reference texts', async (t) => {
  const s = await start(t);
  const typed = { domain_separator: keccak256('0x01'), hash_struct_message: keccak256('0x02') };
  const cases: Array<[string, string, unknown, string]> = [
    ['solana', 'sign', { message: 'x' }, 'Sign data not supported for Solana relayers'],
    ['stellar', 'sign', { message: 'x' }, 'Signing data not supported for Stellar'],
    ['solana', 'sign-typed-data', typed, 'Sign typed data not supported for Solana relayers'],
    ['stellar', 'sign-typed-data', typed, 'Signing typed data not supported for Stellar'],
    ['evm', 'sign-transaction', { unsigned_xdr: 'AAAA' }, 'Transaction signing not supported for EVM'],
    ['evm', 'sign-transaction', [1, 2, 3], 'Transaction signing not supported for EVM'],
  ];
  for (const [relayer, path, body, text] of cases) {
    const res = await s.request('POST', `${base(relayer)}/${path}`, { body });
    assert.equal(res.status, 400, `${relayer} ${path}`);
    assert.deepEqual(res.body, { success: false, data: null, error: text, message: 'Bad Request' });
  }
});

test('a relayer the system disabled reports it in status and refuses sends, rpc and signing with 403 Relayer disabled', async (t) => {
  const s = await start(t);
  await s.app.store.repos.relayers.setSystemDisabled('evm', { type: 'SignerUnavailable', details: 'test' });
  const status = await s.request('GET', `${base('evm')}/status`);
  assert.equal(status.body.data.system_disabled, true);
  for (const [path, body] of [
    ['transactions', { to: '0x000000000000000000000000000000000000dEaD', value: 1, gas_limit: 21000 }],
    ['rpc', { method: 'eth_chainId' }],
    ['sign', { message: 'x' }],
  ] as const) {
    const res = await s.request('POST', `${base('evm')}/${path}`, { body });
    assert.equal(res.status, 403, path);
    assert.deepEqual(res.body, { success: false, data: null, error: 'Relayer disabled', message: 'Relayer disabled' });
  }
});
