// Shared tools for the sandbox-integrity suites: plugin sources, the runtime process's memory and CPU, the envelope
// check every answer must pass.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { TestResponse, TestServer } from '../helper.ts';

/** A plugin whose handler body is `body` (with `kv`, `api`, `context` in scope). */
export const plugin = (
  body: string,
  settings = `export const settings = { timeout: 2, memory_mb: 64, emit_logs: true };`,
) => `${settings}\nexport async function handler(context) {\nconst { kv, api } = context;\n${body}\n}\n`;

export const ECHO = `export async function handler(c) { return c.params; }`;

export function rssMiB(pid: number | undefined): number {
  assert.ok(pid, 'the runtime is up');
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** CPU time (user + system, clock ticks of 10 ms) of a process and all its threads so far. */
export function cpuTicks(pid: number | undefined): number {
  assert.ok(pid, 'the runtime is up');
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Every answer is our JSON envelope: JSON content type, `success` boolean, a plugin failure's code well-formed. */
export function assertEnvelope(res: TestResponse, label: string): void {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${label}: ${res.text.slice(0, 200)}`);
  assert.ok(res.body && typeof res.body.success === 'boolean', `${label}: ${res.text.slice(0, 200)}`);
  assert.ok(res.status === 200 || (res.status >= 400 && res.status <= 599), `${label}: status ${res.status}`);
  if (!res.body.success && res.body.data) assert.match(res.body.data.code, /^[A-Za-z0-9_.:-]{1,64}$/, label);
  const extra = Object.keys(res.body).filter((k) => !['success', 'data', 'error', 'metadata', 'message'].includes(k));
  assert.deepEqual(extra, [], `${label}: unexpected envelope keys`);
}

/** Calls `id` until it answers 200 (the runtime may be restarting after a crash). */
export async function answersAgain(s: TestServer, id = 'echo'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await s.request('POST', `/api/v1/plugins/${id}/call`, { body: { params: 1 } })).status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${id} does not answer again`);
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
