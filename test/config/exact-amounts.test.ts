// Issue 39: every wei, lamport or stroop amount is read exactly, as a JSON number or a decimal string, from the API
// and from the config file. A property test around 2^53, 2^64 and 2^128: random values near each bound round-trip
// exactly where the reference's type holds them (EVM u128, Solana and Stellar u64), and out-of-range, negative,
// fractional or exponent values are refused with an error naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, type TestServer } from '../helper.ts';
import { loadConfigFile, PROJECT_ROOT } from '../../src/config/config.ts';

const U64_MAX = 2n ** 64n - 1n;
const U128_MAX = 2n ** 128n - 1n;
const BOUNDS = [2n ** 53n, 2n ** 64n, 2n ** 128n];

/** A small seeded generator (mulberry32): the same values on every run; the seed is in each failure's message. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const SEED = 39;
const next = random(SEED);
/** Values around each bound: the bound itself, ±1, and random ones within ±2^20 of it. */
const near = (bound: bigint): bigint[] => [
  bound - 1n,
  bound,
  bound + 1n,
  ...Array.from({ length: 6 }, () => bound + BigInt(Math.floor((next() - 0.5) * 2 ** 21))),
];
const SAMPLES = BOUNDS.flatMap(near).filter((v) => v >= 0n);

/** The three relayers of the example config, each with its field's bound (the reference's type). */
const FIELDS = [
  { relayer: 'sepolia-example', index: 0, max: U128_MAX },
  { relayer: 'solana-example', index: 1, max: U64_MAX },
  { relayer: 'stellar-example', index: 2, max: U64_MAX },
] as const;

/** The raw JSON texts a value may be written as: a number, and a decimal string. */
const writings = (v: bigint) => [String(v), `"${v}"`];
/** Texts no amount field takes, whatever the bound. */
const BAD = [
  '-1',
  '"-1"',
  `-${2n ** 64n}`,
  '1.5',
  `"1.5"`,
  `${2n ** 53n}.5`,
  '1e16',
  '"1e16"',
  '10000000000000000.0',
  '" 7"',
  '"0x10"',
  'true',
];

/** The amount as answered, exact: the JSON text's number or string, read without JSON.parse's rounding. */
function answered(text: string): bigint {
  const m = /"min_balance":("?)(\d+)\1[,}]/.exec(text);
  assert.ok(m, `no min_balance in ${text}`);
  return BigInt(m[2]!);
}

test('config file: min_balance near 2^53, 2^64 and 2^128 is read exactly as a number or a string; out of range, negative, fractional and exponent values are refused naming the field', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-amounts-'));
  try {
    const example = readFileSync(path.join(PROJECT_ROOT, 'config.example.json'), 'utf8');
    const file = path.join(dir, 'config.json');
    const load = (field: (typeof FIELDS)[number], raw: string) => {
      const config = JSON.parse(example) as { relayers: Array<{ policies?: Record<string, unknown> }> };
      config.relayers[field.index]!.policies = { ...config.relayers[field.index]!.policies, min_balance: '__AMOUNT__' };
      writeFileSync(file, JSON.stringify(config).replace('"__AMOUNT__"', raw));
      return () =>
        loadConfigFile(file, { bases: [dir, PROJECT_ROOT], referenceRoot: undefined }).relayers[field.index]!.policies!
          .min_balance;
    };
    for (const field of FIELDS) {
      for (const v of SAMPLES) {
        for (const raw of writings(v)) {
          const read = load(field, raw);
          if (v <= field.max)
            assert.equal(BigInt(read() as string | number), v, `seed ${SEED}: ${field.relayer} ${raw}`);
          else
            assert.throws(
              read,
              /relayers\.\d+: 'policies\.min_balance' must be a non-negative integer \((wei|lamports|stroops), at most 2\^(64|128) - 1\), as a JSON number or a decimal string, or null/,
              `seed ${SEED}: ${field.relayer} ${raw} is out of range`,
            );
        }
      }
      for (const raw of BAD)
        assert.throws(
          load(field, raw),
          /relayers\.\d+: 'policies\.min_balance' must be (a non-negative integer|written as plain decimal digits)/,
          `${field.relayer} ${raw}`,
        );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('API: min_balance near 2^53, 2^64 and 2^128 round-trips exactly as a number or a string; out of range, negative, fractional and exponent values get a 400 naming the field', async (t) => {
  const s: TestServer = await build(t);
  const patch = (relayer: string, raw: string) =>
    s.request('PATCH', `/api/v1/relayers/${relayer}`, {
      rawBody: `{"policies":{"min_balance":${raw}}}`,
      headers: { 'content-type': 'application/json' },
    });
  for (const field of FIELDS) {
    for (const v of SAMPLES) {
      for (const raw of writings(v)) {
        const res = await patch(field.relayer, raw);
        if (v <= field.max) {
          assert.equal(res.status, 200, `seed ${SEED}: ${field.relayer} ${raw}: ${res.text}`);
          assert.equal(answered(res.text), v, `seed ${SEED}: ${field.relayer} ${raw}`);
          assert.equal(answered((await s.request('GET', `/api/v1/relayers/${field.relayer}`)).text), v, 'as stored');
        } else {
          assert.equal(res.status, 400, `seed ${SEED}: ${field.relayer} ${raw}: ${res.text}`);
          assert.match(
            res.body.error,
            /'policies\.min_balance' must be a non-negative integer \((wei|lamports|stroops), at most 2\^(64|128) - 1\), as a JSON number or a decimal string, or null/,
          );
        }
      }
    }
    for (const raw of BAD) {
      const res = await patch(field.relayer, raw);
      assert.equal(res.status, 400, `${field.relayer} ${raw}: ${res.text}`);
      assert.match(
        res.body.error,
        /'policies\.min_balance' must be (a non-negative integer|written as plain decimal digits)/,
        `${field.relayer} ${raw}`,
      );
    }
  }
  // The issue's own case: 0.01 ETH (10^16 wei) as a JSON number.
  const res = await patch('sepolia-example', '10000000000000000');
  assert.equal(res.status, 200, res.text);
  assert.equal(answered(res.text), 10n ** 16n);
});
