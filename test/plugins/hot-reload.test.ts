import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from '../helper.ts';
import { eventually } from '../fixtures/plugin-fixtures.ts';

const version = (n: number) => `export async function handler() { return { version: ${n} }; }`;

test('a plugin dropped, edited and deleted at runtime is picked up without a restart', async (t) => {
  const s = await build(t, { runtime: true });
  const call = () => s.request('POST', '/api/v1/plugins/live/call', { body: {} });
  assert.equal((await call()).status, 404);

  writeFileSync(path.join(s.pluginsDir, 'live.ts'), version(1));
  await eventually(async () => (await call()).body?.data?.version === 1);

  writeFileSync(path.join(s.pluginsDir, 'live.ts'), version(2));
  await eventually(async () => (await call()).body?.data?.version === 2);

  rmSync(path.join(s.pluginsDir, 'live.ts'));
  await eventually(async () => (await call()).status === 404);
});

test('a folder plugin with index.ts and its helper module reload when the helper changes', async (t) => {
  const s = await build(t, { runtime: true });
  const dir = path.join(s.pluginsDir, 'folder');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'helper.ts'), `export const value = 'a';`);
  writeFileSync(
    path.join(dir, 'index.ts'),
    `import { value } from './helper.ts'; export async function handler() { return value; }`,
  );
  const call = () => s.request('POST', '/api/v1/plugins/folder/call', { body: {} });
  await eventually(async () => (await call()).body?.data === 'a');
  writeFileSync(path.join(dir, 'helper.ts'), `export const value = 'b';`);
  await eventually(async () => (await call()).body?.data === 'b');
});

test('a broken edit answers COMPILE_ERROR until fixed', async (t) => {
  const s = await build(t, { plugins: { 'flip.ts': version(1) } });
  const call = () => s.request('POST', '/api/v1/plugins/flip/call', { body: {} });
  assert.equal((await call()).body.data.version, 1);
  writeFileSync(path.join(s.pluginsDir, 'flip.ts'), 'export async function handler( {');
  await eventually(async () => (await call()).body?.data?.code === 'COMPILE_ERROR');
  writeFileSync(path.join(s.pluginsDir, 'flip.ts'), version(3));
  await eventually(async () => (await call()).body?.data?.version === 3);
});

test('a file whose name is not a valid plugin id is ignored with a warning', async (t) => {
  const s = await build(t, { plugins: { 'bad name.ts': version(1), 'ok.ts': version(1) } });
  const list = await s.request('GET', '/api/v1/plugins');
  assert.deepEqual(
    list.body.data.map((p: { id: string }) => p.id),
    ['ok'],
  );
  assert.ok(s.logs.some((l) => l.level === 40 && String(l.msg).includes("ignoring 'bad name.ts'")));
});
