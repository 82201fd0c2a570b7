// A plugin call's stretches are published on diagnostics channels on each thread it crosses (issue 43: the bench's hop
// timing without a switch in the product): the route and the call to the runtime here, in the HTTP process; the runtime
// main thread, its Piscina task, the worker's task and the isolate's part in the runtime process, reached the way the
// bench reaches them: bench/hop-probe.ts added to the runtime's Node options through the fork channel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pluginRouteChannel } from '../../src/api/plugins/diagnostics.ts';
import { pluginCallChannel, runtimeForkChannel, type RuntimeForkMessage } from '../../src/plugin-host/diagnostics.ts';
import { build } from '../helper.ts';
import { eventually } from '../support/eventually.ts';

const ECHO = `export async function handler(context) { return context.params; }`;
const PROBE = new URL('../../bench/hop-probe.ts', import.meta.url);

/** Each record the probe wrote (one JSON line per thread and call), by request id. */
function probeRecords(dir: string): Map<string, Record<string, number>> {
  const byId = new Map<string, Record<string, number>>();
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean)) {
      const { requestId, ...measures } = JSON.parse(line) as { requestId: string } & Record<string, number>;
      byId.set(requestId, { ...byId.get(requestId), ...measures });
    }
  }
  return byId;
}

test('a subscriber sees each stretch of a plugin call, in this process and in the runtime process and its worker', async (t) => {
  const out = mkdtempSync(path.join(tmpdir(), 'relaybox-hops-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const probe = new URL(PROBE);
  probe.searchParams.set('out', out);
  const addProbe = (msg: unknown) => (msg as RuntimeForkMessage).execArgv.push(`--import=${probe.href}`);
  runtimeForkChannel.subscribe(addProbe);
  t.after(() => runtimeForkChannel.unsubscribe(addProbe));
  const seen: string[] = [];
  const here = {
    start: (ctx: { res?: { locals: Record<string, unknown> }; requestId?: string }) =>
      seen.push(`start ${String(ctx.requestId ?? ctx.res?.locals.requestId)}`),
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (ctx: { res?: { locals: Record<string, unknown> }; requestId?: string; plugin?: string }) =>
      seen.push(`end ${ctx.plugin ?? 'route'} ${String(ctx.requestId ?? ctx.res?.locals.requestId)}`),
    error: () => {},
  };
  pluginRouteChannel.subscribe(here);
  pluginCallChannel.subscribe(here);
  t.after(() => {
    pluginRouteChannel.unsubscribe(here);
    pluginCallChannel.unsubscribe(here);
  });

  const s = await build(t, { plugins: { 'echo.ts': ECHO } });
  const res = await s.request('POST', '/api/v1/plugins/echo/call', {
    body: { params: { n: 1 } },
    headers: { 'x-request-id': 'traced-1' },
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.data, { n: 1 });
  assert.equal(res.headers.get('server-timing'), null, 'nothing of the tracing reaches the answer');
  assert.deepEqual(
    seen,
    ['start traced-1', 'start traced-1', 'end echo traced-1', 'end route traced-1'],
    'the route, then the call to the runtime inside it',
  );

  const records = await eventually(
    () => {
      const r = probeRecords(out).get('traced-1');
      return r && ['main', 'pool', 'worker', 'isolate'].every((k) => k in r) ? r : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  assert.ok(records, `the runtime process's threads recorded the call: ${JSON.stringify([...probeRecords(out)])}`);
  for (const k of ['main', 'pool', 'worker', 'isolate'] as const) assert.ok(records[k]! >= 0, `${k}: ${records[k]}`);
  // Nested stretches, each measured on its own thread's clock.
  assert.ok(
    records.main! >= records.pool! && records.pool! >= records.worker! && records.worker! >= records.isolate!,
    JSON.stringify(records),
  );
});
