// Noise process for the noisy-neighbour scenario: keeps CPU burners busy, holds idle hangers open and fires leaked
// spinners, until SIGTERM; then prints what the noise got as JSON. Its own process, like the driver.
import { Pool } from 'undici';

export interface NoiseSpec {
  url: string;
  headers: Record<string, string>;
  burners: number;
  hangers: number;
  spinners: number;
}

export interface NoiseReport {
  burnerCalls: number;
  burnerStatuses: Record<string, number>;
  hangerStatuses: Record<string, number>;
  spinnerStatuses: Record<string, number>;
}

const spec = JSON.parse(process.argv[2]!) as NoiseSpec;
const pool = new Pool(spec.url, { connections: spec.burners + spec.hangers + spec.spinners + 2 });
const report: NoiseReport = { burnerCalls: 0, burnerStatuses: {}, hangerStatuses: {}, spinnerStatuses: {} };
let stopping = false;
const count = (into: Record<string, number>, status: string) => (into[status] = (into[status] ?? 0) + 1);

async function call(plugin: string): Promise<string> {
  try {
    const res = await pool.request({ method: 'POST', path: `/api/v1/plugins/${plugin}/call`, headers: spec.headers, body: '{}' });
    await res.body.text();
    return String(res.statusCode);
  } catch (err) {
    return stopping ? 'stopped' : `error ${(err as Error).message}`;
  }
}

for (let i = 0; i < spec.burners; i++) {
  void (async () => {
    while (!stopping) {
      const status = await call('noise-burner');
      if (stopping) break;
      report.burnerCalls++;
      count(report.burnerStatuses, status);
    }
  })();
}
for (let i = 0; i < spec.hangers; i++) void call('noise-hanger').then((s) => count(report.hangerStatuses, s));
for (let i = 0; i < spec.spinners; i++) void call('noise-spinner').then((s) => count(report.spinnerStatuses, s));
process.stderr.write('  noise running\n');

process.on('SIGTERM', () => {
  stopping = true;
  process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(0));
});
