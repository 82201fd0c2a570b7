// node:test reporter: each test file's time (its top-level tests added up) and the slowest 20 files, to see where the
// suite's minutes go (`npm run test:durations`). Plain ESM so that it loads on any Node the runner uses.
export default async function* durations(source) {
  const perFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file || nesting !== 0) continue;
    perFile.set(file, (perFile.get(file) ?? 0) + (details?.duration_ms ?? 0));
  }
  const cwd = process.cwd() + '/';
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, ms]) => s + ms, 0);
  yield `test files: ${rows.length}, their tests' time added up: ${(total / 1000).toFixed(1)} s\n`;
  for (const [file, ms] of rows.slice(0, 20))
    yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${file.replace(cwd, '')}\n`;
}
