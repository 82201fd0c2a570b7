// Bundles one plugin entry (TS or JS, relative imports, npm packages next to the plugins) into one CommonJS script.
// Runs in the runtime main thread; never executes plugin code.
import { build, type Message, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sdk', 'relayer-sdk.ts');
const SDK_NAMES = new Set(['@openzeppelin/relayer-sdk', '@relaybox/plugin-sdk']);

export type BundleOutcome = { ok: true; code: string; hash: string } | { ok: false; message: string };

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
  try {
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
    });
    const code = `(function (module, exports) {${result.outputFiles[0]!.text}\n})`;
    return { ok: true, code, hash: createHash('sha256').update(code).digest('hex').slice(0, 32) };
  } catch (err) {
    const errors = (err as { errors?: Message[] }).errors;
    if (errors?.length) return { ok: false, message: errors.slice(0, 5).map((m) => formatMessage(m, pluginsDir)).join('\n') };
    return { ok: false, message: (err as Error).message };
  }
}
