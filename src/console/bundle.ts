// Builds the console's browser code (console/, TypeScript + preact) into one script and one stylesheet with hashed
// names, with the esbuild the service already ships. Once per process, on the first request that needs it; the
// esbuild service is stopped afterwards, so it holds no child process while the service idles.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { PROJECT_ROOT } from '../config/config.ts';

export interface ConsoleAsset {
  body: Buffer;
  type: string;
}

export interface ConsoleBundle {
  /** index.html, naming the hashed files. */
  html: string;
  /** By file name (`app.3F2K….js`). */
  assets: ReadonlyMap<string, ConsoleAsset>;
  /** Bytes a browser loads for the page: the HTML and every asset. */
  bytes: number;
}

const SOURCE = path.join(PROJECT_ROOT, 'console');
const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

export async function buildConsole(): Promise<ConsoleBundle> {
  const esbuild = await import('esbuild');
  try {
    const result = await esbuild.build({
      absWorkingDir: PROJECT_ROOT,
      entryPoints: { app: path.join(SOURCE, 'app.ts') },
      bundle: true,
      minify: true,
      format: 'esm',
      target: 'es2022',
      platform: 'browser',
      entryNames: '[name].[hash]',
      outdir: path.join(SOURCE, 'dist'),
      write: false,
      legalComments: 'none',
      logLevel: 'silent',
    });
    const assets = new Map<string, ConsoleAsset>();
    for (const file of result.outputFiles) {
      const name = path.basename(file.path);
      assets.set(name, {
        body: Buffer.from(file.contents),
        type: TYPES[path.extname(name)] ?? 'application/octet-stream',
      });
    }
    const named = (ext: string) => [...assets.keys()].find((n) => n.endsWith(ext));
    const html = readFileSync(path.join(SOURCE, 'index.html'), 'utf8')
      .replace('{{script}}', named('.js') ?? '')
      .replace('{{style}}', named('.css') ?? '');
    let bytes = Buffer.byteLength(html);
    for (const asset of assets.values()) bytes += asset.body.length;
    return { html, assets, bytes };
  } finally {
    // Nothing else in this process bundles (plugins are bundled in the runtime process).
    await esbuild.stop();
  }
}
