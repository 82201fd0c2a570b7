// Bundles one plugin entry (TS or JS, relative imports, npm packages next to the plugins) into one CommonJS script.
// Runs in the runtime main thread; never executes plugin code.
import type { Message, Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sdk', 'relayer-sdk.ts');
const SDK_NAMES = new Set(['@openzeppelin/relayer-sdk', '@relaybox/plugin-sdk']);

export type BundleOutcome = { ok: true; code: string; hash: string; inputs: Array<[string, string]> } | { ok: false; message: string };

/** What a file looks like now (size and modification time), or '' when it is gone. */
export function stamp(file: string): string {
  try {
    const st = statSync(file);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
}

/** True when every input of a bundle is still exactly as it was when the bundle was built. */
export function unchanged(inputs: ReadonlyArray<readonly [string, string]>): boolean {
  return inputs.length > 0 && inputs.every(([file, was]) => was !== '' && stamp(file) === was);
}

// Loaded on first use: a runtime restarted with an unchanged plugins directory never needs esbuild.
let esbuild: Promise<typeof import('esbuild')> | undefined;

/** `import … from '@openzeppelin/relayer-sdk'` → our in-sandbox implementation; Node built-ins fail the build clearly. */
const sandboxResolver: Plugin = {
  name: 'relaybox-sandbox',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (SDK_NAMES.has(args.path)) return { path: SDK_PATH };
      if (args.kind !== 'entry-point' && (args.path.startsWith('node:') || isBuiltin(args.path))) {
        return {
          errors: [{ text: `"${args.path}" is a Node.js built-in module; plugins run in a sandbox without Node APIs (use the context's api and kv instead)` }],
        };
      }
      return undefined;
    });
  },
};

function formatMessage(m: Message, root: string): string {
  if (!m.location) return m.text;
  const file = path.isAbsolute(m.location.file) ? path.relative(root, m.location.file) : m.location.file;
  return `${file}:${m.location.line}:${m.location.column + 1}: ${m.text}`;
}

/** The factory's text: `(function (module, exports) {…})`, run by the sandbox prelude's `init`. */
export async function bundlePlugin(entry: string, pluginsDir: string): Promise<BundleOutcome> {
  const entryBefore = stamp(entry);
  try {
    esbuild ??= import('esbuild');
    const { build } = await esbuild;
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['import', 'require', 'default'],
      // The service's own tsconfig (verbatimModuleSyntax) must not decide how plugin imports are erased.
      tsconfigRaw: {},
      logLevel: 'silent',
      plugins: [sandboxResolver],
      absWorkingDir: pluginsDir,
      sourcemap: false,
      legalComments: 'none',
      metafile: true,
    });
    const code = `(function (module, exports) {${result.outputFiles[0]!.text}\n})`;
    const inputs = Object.keys(result.metafile.inputs).map((f): [string, string] => {
      const file = path.resolve(pluginsDir, f);
      return [file, stamp(file)];
    });
    // Edited while esbuild read it: an empty stamp never matches, so the next scan builds it again.
    if (stamp(entry) !== entryBefore) inputs.push([entry, '']);
    return { ok: true, code, hash: createHash('sha256').update(code).digest('hex').slice(0, 32), inputs };
  } catch (err) {
    const errors = (err as { errors?: Message[] }).errors;
    if (errors?.length) return { ok: false, message: errors.slice(0, 5).map((m) => formatMessage(m, pluginsDir)).join('\n') };
    return { ok: false, message: (err as Error).message };
  }
}
