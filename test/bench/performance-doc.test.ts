// A full bench run rewrites the figures section of docs/performance.md, and only that section.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { figuresSection, targetsTable, updateFigures, type RunRecord } from '../../bench/report.ts';

const RUN: RunRecord = {
  date: '2030-01-02T03:04:05.000Z',
  commit: '0123456789abcdef',
  node: 'v24.99.0',
  contextMode: 'warm',
  machine: { cpus: 2, cpuModel: 'Test CPU', memoryGiB: 24 },
  service: {
    rssMiBBefore: 300,
    rssMiBAfterPluginScenarios: 500,
    rssBreakdownBefore: { http: 150, runtime: 150 },
    rssBreakdownAfterPlugins: { http: 200, runtime: 300 },
    cpuSecondsDuringPluginScenarios: 100,
  },
  driverCpuSeconds: 20,
  rows: [
    {
      scenario: 'echo plugin',
      inflight: 64,
      requests: 1000,
      errors: 0,
      rps: 12345.6,
      p50: 1,
      p99: 2,
      max: 3,
      ratioToHttpFloor: 0.3,
    },
  ],
};

test('the figures section is replaced in place, says which command and run produced it, and the rest of the page stays', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-perf-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const doc = path.join(dir, 'performance.md');
  writeFileSync(doc, readFileSync(path.join(PROJECT_ROOT, 'docs', 'performance.md')));
  const before = readFileSync(doc, 'utf8');
  updateFigures(doc, figuresSection(RUN, { json: 'run.json', svg: 'run.svg' }));
  const after = readFileSync(doc, 'utf8');
  assert.match(
    after,
    /Produced by `npm run bench` \(full run\) on 2030-01-02 at commit `0123456`: 2 cores \(Test CPU\)/,
  );
  assert.match(after, /\| echo plugin \| 64 \| 12,346 \| 0\.30 \|/);
  assert.match(after, /500 MiB after the plugin scenarios \(200 \+ 300\)/);
  const outside = (text: string) => text.replace(/<!-- bench:figures:start[\s\S]*<!-- bench:figures:end -->/, '');
  assert.equal(outside(after), outside(before));
  updateFigures(doc, figuresSection(RUN, { json: 'run.json', svg: 'run.svg' }));
  assert.equal(readFileSync(doc, 'utf8'), after, 'a second run with the same figures changes nothing');
});

test('a page without the markers is refused rather than appended to', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-perf-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const doc = path.join(dir, 'performance.md');
  writeFileSync(doc, '# Performance\n');
  assert.throws(() => updateFigures(doc, figuresSection(RUN, { json: 'a', svg: 'b' })), /markers are missing/);
  assert.equal(readFileSync(doc, 'utf8'), '# Performance\n');
});

test("the memory targets' rows carry the pipeline floor's tree RSS from the same run", () => {
  const own = [
    { role: 'HTTP', rss: 130.4 },
    { role: 'runtime', rss: 95.2 },
  ];
  const table = targetsTable({
    ...RUN,
    pluginPath: {
      driver: 'wrk',
      rssIdle: own,
      rssAfter: own,
      floorRss: { idle: 190.4, after: 443.2 },
    },
  });
  assert.match(table, /\| whole service tree RSS, idle \(without the devnet\) \| pipeline floor 190 MiB \| 226 MiB/);
  assert.match(table, /\| RSS after load \| pipeline floor 443 MiB right after its wrk runs \| 226 MiB/);
  // A record from before the floor was read: the floor's cell stays empty rather than made up.
  assert.match(targetsTable({ ...RUN, pluginPath: { driver: 'wrk', rssIdle: own, rssAfter: own } }), /\| — \| 226 MiB/);
});
