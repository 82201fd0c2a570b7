// Hostile numbers in bodies and query strings: negative, fractional, exponent notation, 40 digits, repeated parameters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildWithRelayers,
  evmBody,
  fundWithoutLimit,
  payment,
  stellarBody,
  txPath,
} from '../transactions/fixtures.ts';
import { parseJson } from '../../src/http/json-body.ts';
import { assertRejected, storeCounts } from './support.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const U128_MAX = ((1n << 128n) - 1n).toString();
const NOTATION = /must be written as plain decimal digits \(no exponent, no decimal point\)/;

/** A body with `field` set to `literal` exactly as written (JSON.stringify would normalise it). */
const withLiteral = (body: Record<string, unknown>, field: string, literal: string) =>
  JSON.stringify({ ...body, [field]: '@@' }).replace('"@@"', literal);

test('integers written in exponent or decimal-point notation answer 400 naming the field and the notation', async (t) => {
  const s = await buildWithRelayers(t);
  const before = storeCounts(s);
  const evm = evmBody({ gas_limit: 50_000 });
  for (const field of ['value', 'gas_limit', 'max_fee_per_gas', 'max_priority_fee_per_gas']) {
    for (const literal of ['1e3', '1E3', '1e+3', '1000.0', '10000e-1', '1e20', '1e40', '123456789012345678901.5']) {
      const res = await s.request('POST', txPath('evm'), {
        rawBody: withLiteral(evm, field, literal),
        headers: JSON_TYPE,
      });
      assertRejected(res, `${field}=${literal}`, {
        status: 400,
        message: 'Bad Request',
        error: new RegExp(`^'${field}' ${NOTATION.source}`),
      });
    }
  }
  const legacy = await s.request('POST', txPath('evm'), {
    rawBody: withLiteral({ value: 1, to: evm.to }, 'gas_price', '2e9'),
    headers: JSON_TYPE,
  });
  assertRejected(legacy, 'gas_price=2e9', {
    status: 400,
    error: /^'gas_price' must be written as plain decimal digits/,
  });
  for (const [name, body] of [
    ['max_fee', withLiteral(stellarBody(), 'max_fee', '1e6')],
    [
      'operations.0.amount',
      JSON.stringify(stellarBody({ operations: [payment({ amount: '@@' })] })).replace('"@@"', '1e7'),
    ],
    ['memo.value', JSON.stringify(stellarBody({ memo: { type: 'id', value: '@@' } })).replace('"@@"', '5.0')],
    [
      'memo.value.0',
      JSON.stringify(stellarBody({ memo: { type: 'hash', value: ['@@', ...Array(31).fill(1)] } })).replace(
        '"@@"',
        '1e1',
      ),
    ],
  ] as const) {
    const res = await s.request('POST', txPath('stellar'), { rawBody: body, headers: JSON_TYPE });
    assertRejected(res, name, {
      status: 400,
      error: new RegExp(`^'${name.replace(/\./g, '\\.')}' must be written as plain decimal digits`),
    });
  }
  assert.deepEqual(storeCounts(s), before);
});

test('negative, fractional and non-numeric amounts answer 400 naming the field and what it takes', async (t) => {
  const s = await buildWithRelayers(t);
  const before = storeCounts(s);
  for (const field of ['value', 'gas_limit', 'max_fee_per_gas']) {
    for (const literal of [
      '-1',
      '-0.5',
      '1.5',
      '"-1"',
      '"1.5"',
      '"1e3"',
      '"0x10"',
      '" 1"',
      '"+1"',
      '""',
      'true',
      '[1]',
      '{}',
    ]) {
      const res = await s.request('POST', txPath('evm'), {
        rawBody: withLiteral(evmBody(), field, literal),
        headers: JSON_TYPE,
      });
      assertRejected(res, `${field}=${literal}`, {
        status: 400,
        message: 'Bad Request',
        error: new RegExp(`^'${field}' must be a non-negative integer`),
      });
    }
  }
  assert.deepEqual(storeCounts(s), before);
});

test('40-digit numbers and u128 max + 1 answer 400; u128 max itself is kept exactly', async (t) => {
  const s = await buildWithRelayers(t);
  const before = storeCounts(s);
  const overflow = (1n << 128n).toString();
  for (const literal of ['9'.repeat(40), `"${'9'.repeat(40)}"`, '1' + '0'.repeat(39), overflow, `"${overflow}"`]) {
    const res = await s.request('POST', txPath('evm'), {
      rawBody: withLiteral(evmBody(), 'value', literal),
      headers: JSON_TYPE,
    });
    assertRejected(res, `value=${literal}`, { status: 400, error: /^'value' must be a non-negative integer \(u128\)/ });
  }
  for (const literal of ['9223372036854775808', '9'.repeat(20)]) {
    const res = await s.request('POST', txPath('evm'), {
      rawBody: withLiteral(evmBody(), 'gas_limit', literal),
      headers: JSON_TYPE,
    });
    assertRejected(res, `gas_limit=${literal}`, {
      status: 400,
      error: /^'gas_limit' must be a non-negative integer \(int64\)/,
    });
  }
  assert.deepEqual(storeCounts(s), before);

  await fundWithoutLimit(s);
  const exact = await s.request('POST', txPath('evm'), {
    rawBody: withLiteral(evmBody(), 'value', U128_MAX),
    headers: JSON_TYPE,
  });
  assert.equal(exact.status, 200, exact.text);
  assert.equal(exact.body.data.value, U128_MAX);
});

test('plugin params keep exponent and fractional numbers as JSON numbers (only integer fields refuse them)', () => {
  assert.deepEqual(parseJson('{"params":{"a":1e3,"b":1.5e-7,"c":2.0,"d":[1E2]}}'), {
    params: { a: 1000, b: 1.5e-7, c: 2, d: [100] },
  });
});

test('repeated, negative, fractional and exponent query parameters answer 400 naming the parameter', async (t) => {
  const s = await buildWithRelayers(t);
  const lists = [txPath('evm'), '/api/v1/relayers', '/api/v1/notifications', '/api/v1/notifications/hook-a/deliveries'];
  const cases: Array<[string, RegExp]> = [
    ['page=1&page=2', /^query parameter 'page' must be given once$/],
    ['per_page=5&per_page=5', /^query parameter 'per_page' must be given once$/],
    ['page[]=1', /^query parameter 'page\[\]'|^unknown field 'page\[\]'/],
    ['page=-1', /^'page' must be >= 1$/],
    ['per_page=-1', /^'per_page' must be >= 0$/],
    ['page=1.5', /^query parameter 'page' must be integer, written in plain decimal digits$/],
    ['page=1e3', /^query parameter 'page' must be integer, written in plain decimal digits$/],
    ['per_page=1E1', /^query parameter 'per_page' must be integer, written in plain decimal digits$/],
    ['page=0x10', /^query parameter 'page' must be integer, written in plain decimal digits$/],
    ['page=%201', /^query parameter 'page' must be integer, written in plain decimal digits$/],
    ['page=', /^query parameter 'page' must be integer, written in plain decimal digits$/],
    ['page=' + '9'.repeat(40), /^'page' must be <= |^'page' must be integer/],
  ];
  for (const path of lists) {
    for (const [query, reason] of cases) {
      const res = await s.request('GET', `${path}?${query}`);
      assertRejected(res, `${path}?${query}`, { status: 400, message: 'Bad Request', error: reason });
    }
  }
});
