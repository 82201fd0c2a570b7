// LOG_FORMAT as the reference has it: compact, pretty or json, the text ones by pino-pretty's own formatter; the
// generated API key always on a line of its own, never inside a log line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from '../helper.ts';
import { runRelaybox, startRelaybox } from '../support/cli.ts';

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-logfmt-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // No devnet, no plugins: the start is quick, and its lines are few.
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ networks: [], signers: [], relayers: [] }));
  return dir;
}

/** The generated key, which must stand alone on its line, two spaces in. */
function generatedKey(out: string): string {
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.includes('generated one for this run'));
  assert.ok(at >= 0, out);
  const key = /^ {2}(\S{32,})$/.exec(lines[at + 2] ?? '')?.[1];
  assert.ok(key, `the key stands on a line of its own:\n${out}`);
  return key;
}

/** Starts and stops the service in `format`; undefined: LOG_FORMAT unset (the harness's json left out too). */
async function startAndStop(t: Parameters<typeof scratch>[0], format: string | undefined) {
  const dir = scratch(t);
  const env = { CONFIG_PATH: 'config.json', DATA_DIR: path.join(dir, 'data'), PORT: '0', LOG_FORMAT: format };
  const svc = startRelaybox([], { cwd: dir, env });
  t.after(() => svc.child.kill('SIGKILL'));
  const out = await svc.ready;
  const key = generatedKey(out);
  const port =
    /"?port"?: ?(\d+)/.exec(out.split('\n').find((l) => l.includes('relaybox listening')) ?? '')?.[1] ??
    /127\.0\.0\.1:(\d+)\/api\/v1/.exec(out)?.[1];
  assert.ok(port, out);
  assert.equal(
    (await request(`http://127.0.0.1:${port}`, 'GET', '/api/v1/relayers', { auth: `Bearer ${key}` })).status,
    200,
  );
  svc.child.kill('SIGTERM');
  await once(svc.child, 'exit');
  const logLines = svc
    .output()
    .split('\n')
    .filter((l) => l !== '' && !l.includes('generated one for this run') && !l.includes(key));
  return { key, logLines, all: svc.output() };
}

test('LOG_FORMAT=json: every log line is one JSON object, and the key is on a line of its own', async (t) => {
  const { key, logLines } = await startAndStop(t, 'json');
  for (const line of logLines) assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
  assert.ok(logLines.some((l) => (JSON.parse(l) as { msg: string }).msg === 'relaybox stopped'));
  assert.ok(logLines.every((l) => !l.includes(key)));
});

test('LOG_FORMAT with another value is refused in one sentence, by the start and by check', async (t) => {
  const dir = scratch(t);
  const env = { CONFIG_PATH: 'config.json', LOG_FORMAT: 'fancy' };
  const start = await runRelaybox([], { cwd: dir, env });
  assert.equal(start.status, 1);
  assert.match(start.stdout, /LOG_FORMAT must be 'compact', 'pretty' or 'json', got 'fancy'/);
  const check = await runRelaybox(['check'], { cwd: dir, env });
  assert.equal(check.status, 1);
  assert.match(check.stdout, /- LOG_FORMAT must be 'compact', 'pretty' or 'json', got 'fancy'/);
});

const TEXT_LINE = /^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\] (INFO|WARN|ERROR|FATAL|DEBUG): /;

test('LOG_FORMAT=compact: one text line per entry by pino-pretty, fields on the same line, the key on its own', async (t) => {
  const { logLines, all } = await startAndStop(t, 'compact');
  for (const line of logLines) assert.match(line, TEXT_LINE, all);
  const listening = logLines.find((l) => l.includes('relaybox listening'));
  assert.match(listening ?? '', /INFO: relaybox listening \{.*"url":"http:\/\/127\.0\.0\.1:\d+\/api\/v1"/);
  assert.doesNotMatch(all, /"pid"|"hostname"/);
});

test('LOG_FORMAT=pretty: each entry a text line, its fields indented on lines of their own', async (t) => {
  const { logLines, all } = await startAndStop(t, 'pretty');
  const heads = logLines.filter((l) => !l.startsWith(' '));
  for (const line of heads) assert.match(line, TEXT_LINE, all);
  const at = logLines.findIndex((l) => /INFO: relaybox listening$/.test(l));
  assert.ok(at >= 0, all);
  assert.ok(
    logLines.slice(at + 1).some((l) => /^ {4}url: "http:\/\/127\.0\.0\.1:\d+\/api\/v1"$/.test(l)),
    all,
  );
});

/** pino-pretty's own formatter with the options the service gives it for `compact` (no colours: not a terminal). */
function pinoPrettyCompact(): (line: string) => string {
  const pretty = createRequire(new URL('../../src/observability/log-format.ts', import.meta.url))('pino-pretty') as {
    prettyFactory(o: object): (line: string) => string;
  };
  return pretty.prettyFactory({
    colorize: false,
    singleLine: true,
    translateTime: "UTC:yyyy-mm-dd'T'HH:MM:ss.l'Z'",
    ignore: 'pid,hostname,service',
  });
}

test('LOG_FORMAT unset: compact, the reference default, is pino-pretty output, and the key stays on a line of its own', async (t) => {
  // startAndStop finds the key alone on its line, two spaces in, and signs in with it.
  const { key, logLines, all } = await startAndStop(t, undefined);
  for (const line of logLines) {
    assert.match(line, TEXT_LINE, all);
    assert.throws(() => JSON.parse(line), `a JSON line: ${line}`);
    assert.ok(!line.includes(key), 'the key is in no log line');
  }
  // The listening line, taken apart and given back to pino-pretty as the JSON entry it was, comes out the same.
  const listening = logLines.find((l) => l.includes('relaybox listening')) ?? '';
  const parts = /^\[(\S+)\] INFO: relaybox listening (\{.*\})$/.exec(listening);
  assert.ok(parts, all);
  const entry = {
    level: 30,
    time: Date.parse(parts[1]!),
    pid: 1,
    hostname: 'h',
    service: 'relaybox',
    ...(JSON.parse(parts[2]!) as object),
    msg: 'relaybox listening',
  };
  assert.equal(pinoPrettyCompact()(JSON.stringify(entry)).trimEnd(), listening);
  assert.ok(
    logLines.some((l) => / INFO: relaybox stopped/.test(l)),
    all,
  );
});
