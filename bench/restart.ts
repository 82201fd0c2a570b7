// Runtime restart with many plugins present: kill -9 of the plugin runtime process, then the time until a plugin
// call succeeds again (a standby process when PLUGIN_RUNTIME_STANDBY=1, else a new one; unchanged plugins load from the cache).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Row } from './report.ts';

const PLUGINS = 50;
/** The standby is forked 5 s after the runtime is ready; give it time to boot its workers too. */
const STANDBY_WAIT_MS = 9000;

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function startTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

/** The serving runtime process: the oldest `runtime/process/server.ts` child of the service (the standby is younger). */
function activeRuntime(servicePid: number): number {
  const runtimes = childrenOf(servicePid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('runtime/process/server.ts');
    } catch {
      return false;
    }
  });
  if (runtimes.length === 0) throw new Error('no runtime process found');
  return runtimes.sort((a, b) => startTicks(a) - startTicks(b))[0]!;
}

export async function runtimeRestart(
  url: string,
  headers: Record<string, string>,
  servicePid: number,
  pluginsDir: string,
  runs: number,
  log: (msg: string) => void,
): Promise<Row> {
  const present = readdirSync(pluginsDir).length;
  for (let i = present; i < PLUGINS; i++)
    writeFileSync(
      path.join(pluginsDir, `many_${i}.ts`),
      `export async function handler(c: { params: unknown }) { return { n: ${i}, params: c.params }; }\n`,
    );
  const call = async (id: string) =>
    (await fetch(`${url}/api/v1/plugins/${id}/call`, { method: 'POST', headers, body: '{}' }).then(
      (r) => r.status,
      () => 0,
    )) === 200;
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    while (!(await call(`many_${PLUGINS - 1}`))) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, STANDBY_WAIT_MS));
    const t0 = performance.now();
    process.kill(activeRuntime(servicePid), 'SIGKILL');
    while (!(await call('echo'))) await new Promise((r) => setTimeout(r, 5));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  log(
    `runtime restart with ${Math.max(present, PLUGINS)} plugins: ${times.map((t) => t.toFixed(0)).join(', ')} ms (target < 1000 ms)`,
  );
  return {
    scenario: `runtime restart, ${Math.max(present, PLUGINS)} plugins (kill -9 → first successful call)`,
    inflight: 0,
    requests: runs,
    errors: 0,
    rps: 0,
    p50: times[Math.floor(times.length / 2)]!,
    p99: times[times.length - 1]!,
    max: times[times.length - 1]!,
  };
}
