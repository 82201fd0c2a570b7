// Instructions per call of a warm echo call's isolate part, counted by valgrind (callgrind), not timed: a busy host
// moves CPU time per call by 20-40 % from one minute to the next, instruction counts by a few per cent. The worker's own
// path (runtime/worker/sandbox.ts): a generation, a slot with the prelude, then `enterFirst` as a worker calls it
// (`run` with its slice, `collect`), the echo handler. Two runs under `node --single-threaded` (no compiler or GC
// threads to schedule) of 1,000 and 1,000 + N calls; their difference over N.
// `node bench/isolate-instructions.ts [N=20000]`; needs valgrind (Debian's package). Not part of `npm run bench`:
// under valgrind it takes about a minute.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGeneration, createSlot, enterFirst, randomSeed, SYNC_SLICE_MS } from '../runtime/worker/sandbox.ts';
import { RUNTIME_LIMITS } from '../src/plugin-host/limits.ts';

const ECHO =
  '(function (module, exports) { exports.handler = async function handler(context) { return context.params; }; })';
/** What the HTTP process sends for `POST /api/v1/plugins/echo/call` with wrk's headers (call-protocol.ts). */
const INPUT = JSON.stringify({
  params: { hello: 'world', n: 1 },
  headers: { host: ['127.0.0.1:8080'], 'content-type': ['application/json'], 'content-length': ['34'] },
  route: '',
  method: 'POST',
  query: {},
  requestId: '0b6f4c1e-2d1a-4f7e-9a51-2f0c3f5e8d21',
});

/**
 * In the child: `calls` warm calls. Under valgrind a collection in the isolate can outlast the 25 ms slice now and
 * then (about one call in 3,500): such a call fails its entry and the next one starts afresh, as in a worker. Their
 * number is printed on stderr ("cut: n") and reported beside the figure.
 */
async function child(calls: number): Promise<void> {
  const gen = createGeneration('echo', 'bench', ECHO, 64);
  const { slot } = await createSlot(gen, RUNTIME_LIMITS, 5000);
  let cut = 0;
  for (let seq = 1; seq <= calls; seq++) {
    const first = enterFirst(slot, [seq, INPUT, 'null', false, randomSeed(), true], SYNC_SLICE_MS);
    if (typeof first !== 'object' || !('done' in first) || first.done[0] !== 'ok') cut++;
  }
  process.stderr.write(`cut: ${cut}\n`);
  gen.isolate.dispose();
}

/** Instructions valgrind counted over a whole child process making `calls` calls. */
function instructions(calls: number, dir: string): { counted: number; cut: number } {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${path.join(dir, `callgrind.${calls}`)}`,
      process.execPath,
      '--single-threaded',
      '--no-node-snapshot',
      fileURLToPath(import.meta.url),
      '--child',
      String(calls),
    ],
    { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const counted = /Collected : (\d+)/.exec(run.stderr ?? '')?.[1];
  const cut = /cut: (\d+)/.exec(run.stderr ?? '')?.[1];
  if (run.status !== 0 || !counted || !cut)
    throw new Error(`valgrind, ${calls} calls: ${run.error?.message ?? run.stderr}`);
  return { counted: Number(counted), cut: Number(cut) };
}

function main(): void {
  const calls = Number(process.argv[2] ?? 20_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relaybox-isolate-instructions-'));
  try {
    const base = instructions(1_000, dir);
    const more = instructions(1_000 + calls, dir);
    const perCall = Math.round((more.counted - base.counted) / calls);
    // Calls cut at the slice under valgrind (not at native speed): each one's entry fails and the next call starts
    // afresh; a handful in 20,000 is inside the few per cent two runs differ by.
    process.stdout.write(
      `${JSON.stringify({ calls, instructionsPerCall: perCall, cutAtTheSlice: base.cut + more.cut })}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(Number(process.argv[3]));
else main();
