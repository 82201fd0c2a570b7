// The noisy-neighbour scenario: an innocent echo plugin driven alone, then again while other plugins misbehave
// (4 CPU burners, 16 idle hangers, 2 leaked spinners; bench/noise.ts), in the same run. Target: the innocent's p99
// within 3x of its own baseline, and no innocent call failed or stalled.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DriverResult, DriverSpec } from './driver.ts';
import type { NoiseReport, NoiseSpec } from './noise.ts';
import type { Row } from './report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const INFLIGHT = 16;
/** Lets the burners get going and the hangers take their slots before the innocent is measured. */
const SETTLE_MS = 500;

type Drive = (spec: Omit<DriverSpec, 'durationMs' | 'count' | 'warmupMs'>) => Promise<DriverResult>;

export async function noisyNeighbour(url: string, headers: Record<string, string>, body: string, drive: Drive, log: (msg: string) => void): Promise<{ rows: Row[]; noise: NoiseReport; p99Ratio: number }> {
  const spec = { url, method: 'POST' as const, path: '/api/v1/plugins/echo/call', headers, body, inflight: INFLIGHT };
  log(`noisy neighbour: echo alone @${INFLIGHT}`);
  const alone = await drive({ ...spec, label: 'echo alone' });
  const noiseSpec: NoiseSpec = { url, headers, burners: 4, hangers: 16, spinners: 2 };
  const noise = spawn(process.execPath, [path.join(HERE, 'noise.ts'), JSON.stringify(noiseSpec)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  noise.stdout.on('data', (d) => (out += d));
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  log(`noisy neighbour: echo @${INFLIGHT} with 4 CPU burners, 16 idle hangers, 2 leaked spinners`);
  const noisy = await drive({ ...spec, label: 'echo with noise' });
  noise.kill('SIGTERM');
  await once(noise, 'exit');
  const report = JSON.parse(out || '{}') as NoiseReport;
  const p99Ratio = alone.p99 > 0 ? noisy.p99 / alone.p99 : 0;
  log(`  innocent p99 ${noisy.p99.toFixed(1)} ms vs ${alone.p99.toFixed(1)} ms alone (${p99Ratio.toFixed(2)}x, target <= 3x); noise: ${JSON.stringify(report)}`);
  const row = (scenario: string, r: DriverResult, note?: string): Row => ({ scenario, inflight: INFLIGHT, requests: r.requests, errors: r.errors, rps: r.rps, p50: r.p50, p99: r.p99, max: r.max, ...(note ? { note } : {}) });
  return {
    rows: [row('noisy neighbour: echo alone', alone), row('noisy neighbour: echo with noise', noisy, `p99 ${p99Ratio.toFixed(2)}x alone, ${report.burnerCalls ?? 0} burner calls`)],
    noise: report,
    p99Ratio,
  };
}
