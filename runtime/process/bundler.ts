// Bundles one plugin entry (TS or JS, relative imports, npm packages next to the plugins) into one CommonJS script.
// Runs in the runtime main thread; never executes plugin code.
import type { BuildOptions, Message, Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
/** The real `@openzeppelin/relayer-sdk` (a dependency of ours), its ES module build so unused exports are dropped. */
const REAL_SDK_DIR = path.dirname(require.resolve('@openzeppelin/relayer-sdk/package.json'));
const REAL_SDK = path.join(REAL_SDK_DIR, 'dist', 'esm', 'index.js');
/** Our additions for the legacy forms (`runPlugin`), re-exporting the real SDK. */
const COMPAT_SDK = path.join(HERE, '..', 'isolate', 'sdk', 'relayer-sdk.ts');
/** Node built-ins published plugins import, mapped to sandbox-safe implementations. */
const BUILTINS: Record<string, string> = {
  crypto: path.join(HERE, '..', 'isolate', 'sdk', 'node-crypto.ts'),
  buffer: require.resolve('buffer/'),
};
const GLOBALS = path.join(HERE, '..', 'isolate', 'sdk', 'globals.ts');
const PROCESS = path.join(HERE, '..', 'isolate', 'sdk', 'process.ts');
/** The reference's `plugins/lib/plugin` module, imported by its legacy examples as "../lib/plugin". */
const LEGACY_LIB = /(^|\/)lib\/plugin(\.[cm]?[jt]s)?$/;

export type BundleOutcome =
  | { ok: true; code: string; hash: string; inputs: Array<[string, string]> }
  | { ok: false; message: string };

/** What a file looks like now (size and modification time), or '' when it is gone. */
function stamp(file: string): string {
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
/**
 * esbuild's service process (~40 MiB) stays up after a build until stopped: stopped once no build ran for this long
 * (the next build starts it again, in tens of ms; a burst of builds at start or on a deploy shares one).
 */
const ESBUILD_IDLE_MS = 5_000;
let building = 0;
let idleTimer: NodeJS.Timeout | undefined;

function buildStarted(): void {
  building++;
  clearTimeout(idleTimer);
}

function buildEnded(): void {
  if (--building > 0) return;
  idleTimer = setTimeout(() => {
    if (building === 0) void esbuild?.then((e) => e.stop());
  }, ESBUILD_IDLE_MS);
  idleTimer.unref();
}

/**
 * The inject files a first bundle needs: `Buffer`/`URL`/`URLSearchParams`, or `process`, used as a free identifier
 * somewhere (not a property or a quoted name, but a spread `...process.env` is a use; a false positive, such as an
 * object key, costs only a second build).
 */
const FREE = (names: string) => new RegExp(`(?<![\\w$'"\`])(?<!(?<!\\.\\.)\\.)(?:${names})(?![\\w$'"\`])`);
const FREE_GLOBALS = FREE('Buffer|URL|URLSearchParams');
const FREE_PROCESS = FREE('process');
function injectionsFor(text: string): string[] {
  const out: string[] = [];
  if (FREE_GLOBALS.test(text)) out.push(GLOBALS);
  if (FREE_PROCESS.test(text)) out.push(PROCESS);
  return out;
}

const legacyLibMissing = (args: { path: string; resolveDir: string }) =>
  args.path.startsWith('.') &&
  LEGACY_LIB.test(args.path) &&
  !['', '.ts', '.js', '.mts', '.mjs', '.cjs'].some((ext) => existsSync(path.resolve(args.resolveDir, args.path + ext)));

/**
 * `@openzeppelin/relayer-sdk` → the real package (one copy, ours, whatever version a plugin's own node_modules holds);
 * the legacy `../lib/plugin` and `@relaybox/plugin-sdk` → our compat module; `crypto` and `buffer` → sandbox-safe
 * implementations; any other Node built-in fails the build clearly.
 */
const sandboxResolver: Plugin = {
  name: 'relaybox-sandbox',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'inner') return undefined;
      if (args.path === '@openzeppelin/relayer-sdk') return { path: REAL_SDK, sideEffects: false };
      if (args.path === '@relaybox/plugin-sdk' || legacyLibMissing(args)) return { path: COMPAT_SDK };
      // The SDK's generated API clients and axios, and the injected globals, are kept only if the plugin uses them.
      if (
        (args.importer.startsWith(REAL_SDK_DIR) && !isBuiltin(args.path)) ||
        (args.importer === GLOBALS && args.path === 'whatwg-url')
      ) {
        const r = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: 'inner',
        });
        return r.errors.length ? undefined : { path: r.path, sideEffects: false };
      }
      if (args.kind === 'entry-point' || !(args.path.startsWith('node:') || isBuiltin(args.path))) return undefined;
      const target = BUILTINS[args.path.replace(/^node:/, '')];
      if (target) return { path: target, sideEffects: args.importer !== GLOBALS };
      return {
        errors: [
          {
            text: `"${args.path}" is a Node.js built-in module; plugins run in a sandbox without Node APIs (use the context's api and kv, fetch, crypto; "crypto" and "buffer" are provided)`,
          },
        ],
      };
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
  buildStarted();
  try {
    esbuild ??= import('esbuild');
    const { build } = await esbuild;
    const options = {
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'neutral',
      target: 'es2022',
      // Packages' browser builds: the sandbox has web APIs (fetch, crypto, TextEncoder…), not Node's.
      mainFields: ['browser', 'module', 'main'],
      conditions: ['browser', 'import', 'require', 'default'],
      define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
      // The service's own tsconfig (verbatimModuleSyntax) must not decide how plugin imports are erased.
      tsconfigRaw: {},
      logLevel: 'silent',
      plugins: [sandboxResolver],
      absWorkingDir: pluginsDir,
      sourcemap: false,
      legalComments: 'none',
      metafile: true,
    } satisfies BuildOptions;
    let result = await build(options);
    // The injected globals are parsed only for bundles that mention them (whatwg-url alone is ~800 KB to parse).
    const inject = injectionsFor(result.outputFiles[0]!.text);
    if (inject.length) result = await build({ ...options, inject });
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
    if (errors?.length)
      return {
        ok: false,
        message: errors
          .slice(0, 5)
          .map((m) => formatMessage(m, pluginsDir))
          .join('\n'),
      };
    return { ok: false, message: (err as Error).message };
  } finally {
    buildEnded();
  }
}
