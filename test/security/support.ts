// Shared tools for the hostile-input tests: raw HTTP requests, the rejection check, store row counts.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { TestResponse, TestServer } from '../helper.ts';

/** The store's tables a rejected request must leave alone. */
export function storeCounts(s: TestServer): Record<string, number> {
  const count = (table: string) => (s.app.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    transactions: count('transactions'),
    notifications: count('notifications'),
    webhook_events: count('webhook_events'),
  };
}

/**
 * A 4xx answered in the envelope: `success:false`, `data:null`, a precise `error`, and for
 * record routes `message` in the spec's words. Never a 5xx, never HTML.
 */
export function assertRejected(
  res: TestResponse,
  label: string,
  expect: { status?: number; message?: string; error?: RegExp; pluginRoute?: boolean } = {},
): void {
  assert.ok(res.status >= 400 && res.status < 500, `${label}: status ${res.status} ${res.text.slice(0, 200)}`);
  if (expect.status !== undefined) assert.equal(res.status, expect.status, `${label}: ${res.text.slice(0, 200)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, label);
  assert.equal(res.body?.success, false, label);
  assert.equal(res.body.data, null, label);
  assert.equal(typeof res.body.error, 'string', label);
  assert.ok(res.body.error.length > 0, label);
  if (!expect.pluginRoute) {
    assert.equal(typeof res.body.message, 'string', label);
    // The precise reason says more than the spec's generic text.
    assert.notEqual(res.body.error, res.body.message, `${label}: error is not precise`);
  }
  if (expect.message !== undefined) assert.equal(res.body.message, expect.message, label);
  if (expect.error !== undefined) assert.match(res.body.error, expect.error, label);
}

/**
 * Sends a request through node:http, byte for byte: fetch would normalise `..` in the path,
 * merge repeated headers and refuse some of the values tested here.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Array<[string, string]>,
  body?: string | Buffer,
): Promise<TestResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: [['Host', url.host], ...headers].flat() as unknown as Record<string, string>,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers: h, body: parsed, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `depth` nested arrays: `[[[...]]]`. */
export const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** `depth` nested objects: `{"a":{"a":...1}}`. */
export const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
