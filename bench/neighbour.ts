// The noisy-neighbour scenario: an innocent echo plugin driven alone, then again while other plugins misbehave
// (4 CPU burners, 16 idle hangers, 2 leaked spinners; bench/noise.ts), in the same run. Target: the innocent's p99
// within 3x of its own baseline, and no innocent call failed or stalled. Then the crashing neighbour: echo again
// while a plugin whose every call kills the runtime (catastrophic OOM) is called in a loop; target: >= 99 % of the
// innocent's calls answer 200 over the window.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnDriver, type DriverResult, type DriverSpec } from './driver.ts';
import type { NoiseReport, NoiseSpec } from './noise.ts';
import type { Row } from './report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const INFLIGHT = 16;
/** Lets the burners get going and the hangers take their slots before the innocent is measured. */
const SETTLE_MS = 500;

/** The crashing-neighbour window: from just before the first crash until well after the offender is quarantined. */
const CRASH_WINDOW_MS = 12_000;
/** The driver records from its first request; the OOM loop starts this much later, so the window holds the first crash. */
const CRASH_LEAD_MS = 300;

type Drive = (spec: Omit<DriverSpec, 'durationMs' | 'count' | 'warmupMs'>) => Promise<DriverResult>;

/** Runs bench/noise.ts with `spec` until the returned stop() is called, which resolves with what the noise got. */
function startNoise(spec: NoiseSpec): () => Promise<NoiseReport> {
  const noise = spawn(process.execPath, [path.join(HERE, 'noise.ts'), JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  noise.stdout.on('data', (d) => (out += d));
  return async () => {
    noise.kill('SIGTERM');
    await once(noise, 'exit');
    return JSON.parse(out || '{}') as NoiseReport;
  };
}

export interface CrashFigures {
  /** Share of the innocent's calls that answered 200 over the window (0–1). */
  share: number;
  result: DriverResult;
  noise: NoiseReport;
}

/** The innocent echo plugin over CRASH_WINDOW_MS while one loop calls noise-oom (every call kills the runtime process). */
export async function crashingNeighbour(
  url: string,
  headers: Record<string, string>,
  body: string,
  log: (msg: string) => void,
): Promise<{ row: Row; figures: CrashFigures }> {
  log(
    `crashing neighbour: echo @${INFLIGHT} for ${CRASH_WINDOW_MS / 1000} s while noise-oom kills the runtime in a loop`,
  );
  const driving = spawnDriver({
    url,
    method: 'POST',
    path: '/api/v1/plugins/echo/call',
    headers,
    body,
    inflight: INFLIGHT,
    durationMs: CRASH_WINDOW_MS,
    warmupMs: 0,
    label: 'echo with a crashing neighbour',
  });
  await new Promise((r) => setTimeout(r, CRASH_LEAD_MS));
  const stop = startNoise({ url, headers, burners: 0, hangers: 0, spinners: 0, oomers: 1 });
  const result = await driving;
  const noise = await stop();
  const share = result.requests > 0 ? (result.requests - result.errors) / result.requests : 0;
  log(
    `  innocent 200s ${(share * 100).toFixed(2)} % of ${result.requests} (target >= 99 %), p99 ${result.p99.toFixed(1)} ms; first failure: ${result.firstError ?? 'none'}; OOM loop: ${JSON.stringify(noise.oomStatuses)}`,
  );
  const row: Row = {
    scenario: 'crashing neighbour: echo with an OOM loop',
    inflight: INFLIGHT,
    requests: result.requests,
    errors: result.errors,
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    max: result.max,
    note: `${(share * 100).toFixed(2)} % 200s over ${CRASH_WINDOW_MS / 1000} s`,
  };
  return { row, figures: { share, result, noise } };
}

export async function noisyNeighbour(
  url: string,
  headers: Record<string, string>,
  body: string,
  drive: Drive,
  log: (msg: string) => void,
): Promise<{ rows: Row[]; noise: NoiseReport; p99Ratio: number }> {
  const spec = { url, method: 'POST' as const, path: '/api/v1/plugins/echo/call', headers, body, inflight: INFLIGHT };
  log(`noisy neighbour: echo alone @${INFLIGHT}`);
  const alone = await drive({ ...spec, label: 'echo alone' });
  const stop = startNoise({ url, headers, burners: 4, hangers: 16, spinners: 2 });
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  log(`noisy neighbour: echo @${INFLIGHT} with 4 CPU burners, 16 idle hangers, 2 leaked spinners`);
  const noisy = await drive({ ...spec, label: 'echo with noise' });
  const report = await stop();
  const p99Ratio = alone.p99 > 0 ? noisy.p99 / alone.p99 : 0;
  log(
    `  innocent p99 ${noisy.p99.toFixed(1)} ms vs ${alone.p99.toFixed(1)} ms alone (${p99Ratio.toFixed(2)}x, target <= 3x); noise: ${JSON.stringify(report)}`,
  );
  const row = (scenario: string, r: DriverResult, note?: string): Row => ({
    scenario,
    inflight: INFLIGHT,
    requests: r.requests,
    errors: r.errors,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    ...(note ? { note } : {}),
  });
  return {
    rows: [
      row('noisy neighbour: echo alone', alone),
      row(
        'noisy neighbour: echo with noise',
        noisy,
        `p99 ${p99Ratio.toFixed(2)}x alone, ${report.burnerCalls ?? 0} burner calls`,
      ),
    ],
    noise: report,
    p99Ratio,
  };
}
