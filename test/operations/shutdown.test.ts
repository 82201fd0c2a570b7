// A clean stop through a real `npm start` process tree (npm → node src/main.ts → plugin runtime → esbuild), whatever
// receives the signal: the main process only, npm only, or the whole process group (Ctrl-C; systemd's default
// KillMode=control-group). A plugin call is in flight each time and must still answer 200.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { API_KEY, request, type TestResponse } from '../helper.ts';
import { liveGroupMembers } from '../support/process-group.ts';

// Busy for params.ms (the sandbox has no timers); its timeout stays well above that.
const SLEEPER = `export const settings = { timeout: 30 };
export async function handler({ params }) { const until = Date.now() + params.ms; while (Date.now() < until) {} return { slept: params.ms }; }`;

interface Started {
  npm: ChildProcess;
  url: string;
  metricsUrl: string;
  mainPid: number;
  runtimePid: number;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  lines(): Array<Record<string, any>>;
  output(): string;
}

/** `npm start` in its own process group, as a terminal or systemd would run it; resolves once it serves. */
async function startNpm(t: TestContext, env: Record<string, string> = {}): Promise<Started> {
  const root = mkdtempSync(path.join(tmpdir(), 'relaybox-stop-'));
  mkdirSync(path.join(root, 'plugins'));
  writeFileSync(path.join(root, 'plugins', 'sleeper.ts'), SLEEPER);
  const npm = spawn('npm', ['start'], {
    cwd: PROJECT_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      // npm's `node` must be this Node 24, whatever else is on PATH.
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? root,
      API_KEY,
      PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: path.join(root, 'data'),
      PLUGINS_DIR: path.join(root, 'plugins'),
      LOG_LEVEL: 'info',
      // JSON lines: every line is parsed.
      LOG_FORMAT: 'json',
      ...env,
    },
  });
  let out = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (out += d));
  const exited = once(npm, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  t.after(async () => {
    // Whatever a failed assertion left behind: the whole group goes.
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
    rmSync(root, { recursive: true, force: true });
  });
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>);
  const find = (msg: string) => lines().find((l) => l.msg === msg);
  for (let i = 0; !(find('relaybox listening') && find('plugin runtime ready')); i++) {
    if (npm.exitCode !== null || i > 600) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const listening = find('relaybox listening')!;
  const metrics = find('metrics listening');
  assert.ok(metrics, `the metrics listener logs its address:\n${out}`);
  return {
    npm,
    url: `http://127.0.0.1:${listening.address.port}`,
    metricsUrl: `http://127.0.0.1:${metrics.address.port}/metrics`,
    mainPid: listening.pid,
    runtimePid: find('plugin runtime ready')!.pid,
    exited,
    lines,
    output: () => out,
  };
}

/** Starts a call of `ms` and resolves once the runtime holds it (the queue-depth gauge on the logged metrics port). */
async function callInFlight(s: Started, ms: number): Promise<{ call: Promise<TestResponse> }> {
  const call = request(s.url, 'POST', '/api/v1/plugins/sleeper/call', { body: { params: { ms } } });
  call.catch(() => {});
  for (let i = 0; ; i++) {
    const text = await (await fetch(s.metricsUrl)).text();
    if (/^relaybox_runtime_queue_depth 1$/m.test(text)) return { call };
    assert.ok(i < 600, 'the call reached the runtime');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Exit 0, one done line, no restart and nothing logged at error level but `expected`; every process of the group gone. */
async function assertCleanStop(s: Started, expected: (line: Record<string, any>) => boolean = () => false) {
  const [code, signal] = await s.exited;
  assert.equal(signal, null, s.output());
  assert.equal(code, 0, s.output());
  const lines = s.lines();
  assert.equal(lines.filter((l) => l.msg === 'relaybox stopped').length, 1, s.output());
  assert.deepEqual(
    lines.filter((l) => l.level >= 50 && !expected(l)),
    [],
    'nothing at error level',
  );
  assert.deepEqual(
    lines.filter((l) => /restart/i.test(l.msg)),
    [],
    'no runtime restart',
  );
  assert.equal(alive(s.runtimePid), false, 'the plugin runtime is gone');
  // esbuild's service (a grandchild) ends when the runtime's pipe to it closes, a moment after. Zombies do not count:
  // an orphan waits for init to reap it (test/support/process-group.ts).
  for (let i = 0; liveGroupMembers(s.npm.pid!).length > 0; i++) {
    assert.ok(i < 100, 'every process of the group ends');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const CASES: Array<{ name: string; send(s: Started): void }> = [
  { name: 'SIGTERM to the main process only', send: (s) => process.kill(s.mainPid, 'SIGTERM') },
  { name: 'SIGTERM to npm only (npm forwards it)', send: (s) => process.kill(s.npm.pid!, 'SIGTERM') },
  { name: 'SIGINT to the whole process group (Ctrl-C)', send: (s) => process.kill(-s.npm.pid!, 'SIGINT') },
  {
    name: "SIGTERM to the whole process group (systemd's KillMode=control-group)",
    send: (s) => process.kill(-s.npm.pid!, 'SIGTERM'),
  },
];

for (const c of CASES) {
  test(`${c.name}: the call in flight answers 200, npm start exits 0 and logs one done line`, async (t) => {
    const s = await startNpm(t);
    const { call } = await callInFlight(s, 1000);
    c.send(s);
    const res = await call;
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, { slept: 1000 });
    await assertCleanStop(s);
    const shutting = s.lines().filter((l) => l.msg === 'shutting down: draining in-flight requests');
    assert.equal(shutting.length, 1, 'a signal that arrives twice (directly and forwarded by npm) starts one shutdown');
  });
}

test('a call that outlives SHUTDOWN_GRACE_MS is cut when the grace period ends, and the stop is still clean', async (t) => {
  const s = await startNpm(t, { SHUTDOWN_GRACE_MS: '300' });
  const { call } = await callInFlight(s, 20_000);
  process.kill(-s.npm.pid!, 'SIGTERM');
  await assert.rejects(call, 'the connection of the unfinished call is closed');
  // The cut call's 503 is logged with its request id, saying why.
  await assertCleanStop(s, (l) => l.err?.status === 503 && /did not finish within the grace period/.test(l.err.reason));
  const cut = s.lines().find((l) => l.msg === 'shutdown grace period over: closing the connections still open');
  assert.ok(cut, s.output());
  assert.equal(cut.graceMs, 300);
});

test('npm start logs the console URL next to the API URL, serves the console there, and an open events stream does not hold the stop', async (t) => {
  const s = await startNpm(t);
  const listening = s.lines().find((l) => l.msg === 'relaybox listening')!;
  assert.equal(listening.url, `${s.url}/api/v1`);
  assert.equal(listening.console, `${s.url}/console`);
  const page = await fetch(listening.console);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Relaybox console/);
  const stream = await fetch(`${s.url}/api/v1/events`, { headers: { authorization: `Bearer ${API_KEY}` } });
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  assert.match(new TextDecoder().decode((await reader.read()).value), /: connected/);
  process.kill(s.mainPid, 'SIGTERM');
  // The stream ends at the stop, so the stop does not wait out SHUTDOWN_GRACE_MS for it.
  while (!(await reader.read()).done);
  await assertCleanStop(s);
  assert.equal(
    s.lines().find((l) => l.msg === 'shutdown grace period over: closing the connections still open'),
    undefined,
    s.output(),
  );
});
