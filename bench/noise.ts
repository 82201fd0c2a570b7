// Noise process for the noisy-neighbour scenario: keeps CPU burners busy, holds idle hangers open, fires leaked
// spinners and loops calls that crash the runtime (OOM), until SIGTERM; then prints what the noise got as JSON.
// Its own process, like the driver.
import { Pool } from 'undici';

export interface NoiseSpec {
  url: string;
  headers: Record<string, string>;
  burners: number;
  hangers: number;
  spinners: number;
  /** Loops calling noise-oom (every call kills the runtime process until the plugin is quarantined). */
  oomers?: number;
}

export interface NoiseReport {
  burnerCalls: number;
  burnerStatuses: Record<string, number>;
  hangerStatuses: Record<string, number>;
  spinnerStatuses: Record<string, number>;
  /** Answers to the OOM loop, by status and code (500 MEMORY_LIMIT_EXCEEDED: a crash; 503 PLUGIN_QUARANTINED: stopped). */
  oomStatuses: Record<string, number>;
}

const spec = JSON.parse(process.argv[2]!) as NoiseSpec;
/** Between two calls of an OOM loop: an attacker's loop, not a flood of the HTTP process (the driver measures that). */
const OOM_PAUSE_MS = 20;
const oomers = spec.oomers ?? 0;
const pool = new Pool(spec.url, { connections: spec.burners + spec.hangers + spec.spinners + oomers + 2 });
const report: NoiseReport = {
  burnerCalls: 0,
  burnerStatuses: {},
  hangerStatuses: {},
  spinnerStatuses: {},
  oomStatuses: {},
};
let stopping = false;
const count = (into: Record<string, number>, status: string) => (into[status] = (into[status] ?? 0) + 1);

async function call(plugin: string, withCode = false): Promise<string> {
  try {
    const res = await pool.request({
      method: 'POST',
      path: `/api/v1/plugins/${plugin}/call`,
      headers: spec.headers,
      body: '{}',
    });
    const text = await res.body.text();
    const code = withCode ? /"code":"([A-Z_]+)"/.exec(text)?.[1] : undefined;
    return code ? `${res.statusCode} ${code}` : String(res.statusCode);
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
for (let i = 0; i < oomers; i++) {
  void (async () => {
    while (!stopping) {
      const status = await call('noise-oom', true);
      if (stopping) break;
      count(report.oomStatuses, status);
      await new Promise((r) => setTimeout(r, OOM_PAUSE_MS));
    }
  })();
}
process.stderr.write('  noise running\n');

process.on('SIGTERM', () => {
  stopping = true;
  process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(0));
});
