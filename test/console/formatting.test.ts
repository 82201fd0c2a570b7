// The console's formatting, as the browser runs it: amounts in each chain's coin (exact, from the integer), a
// delivery's error class from the texts the webhook delivery writes, and "next try" never in the past.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ago, coin } from '../../console/ui.ts';
import { errorClass, isFailing, nextTry } from '../../console/delivery.ts';

test('amounts are shown in the coin of their chain, exactly, from the smallest unit', () => {
  assert.equal(coin('1500000000000000000', 'wei'), '1.5 ETH');
  assert.equal(coin('10000000000000000000000', 'wei'), '10000 ETH');
  assert.equal(coin('2500000000', 'lamport'), '2.5 SOL');
  assert.equal(coin('123456789', 'stroop'), '12.345678 XLM');
  assert.equal(coin('1', 'wei'), '< 0.000001 ETH', 'a dust amount is not shown as zero');
  assert.equal(coin('0', 'wei'), '0 ETH');
  assert.equal(coin('30000000000', 'gwei'), '30 gwei');
  // Beyond a JS number's exact range: still exact.
  assert.equal(coin('340282366920938463463374607431768211455', 'wei'), '340282366920938463463.374607 ETH');
  assert.equal(coin('not a number', 'wei'), '—');
});

test('a delivery error is shown by its class, from the texts the delivery writes', () => {
  assert.equal(errorClass('connection error: ECONNREFUSED'), 'connection refused');
  assert.equal(errorClass('receiver answered HTTP 503'), 'HTTP 503 from the receiver');
  assert.equal(errorClass('no answer within 10000 ms'), 'timed out');
  assert.equal(errorClass('connection error: ENOTFOUND'), 'host not found');
  assert.equal(errorClass('connection error: UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'TLS error');
  assert.equal(errorClass('notification deleted'), 'notification deleted');
  assert.equal(errorClass('connection error: something new'), 'connection error');
  assert.equal(errorClass(null), null);
});

test('a dead receiver counts as failing while its events are still retried, and no next try is in the past', () => {
  const now = Date.parse('2026-01-01T12:00:00.000Z');
  const retrying = {
    status: 'pending',
    attempts: 3,
    last_error: 'connection error: ECONNREFUSED',
    next_attempt_at: '2026-01-01T11:59:50.000Z',
  };
  assert.equal(isFailing(retrying), true);
  assert.equal(nextTry(retrying, now), 'retry due now');
  assert.equal(nextTry({ ...retrying, attempts: 0, last_error: null }, now), 'queued: due now');
  assert.equal(nextTry({ ...retrying, next_attempt_at: '2026-01-01T12:00:30.000Z' }, now), 'retry in 30 s');
  assert.equal(nextTry({ ...retrying, status: 'delivered' }, now), null);
  assert.equal(isFailing({ ...retrying, attempts: 0, last_error: null }), false);
  assert.equal(ago('2026-01-01T11:58:00.000Z', now), '2 min ago');
});
