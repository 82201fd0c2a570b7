// The browser for browser tests: the Chromium build that the npm package @sparticuz/chromium ships inside itself
// (no download at install, no root, no system browser), unpacked once per install into node_modules/.cache.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../../src/config/config.ts';

export interface BrowserExecutable {
  executablePath: string;
  /** The browser process's environment: its own NSS libraries and fonts, so the machine needs none. */
  env: Record<string, string | undefined>;
}

const PACKAGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.resolve('@sparticuz/chromium'))), '..');

/** CHROMIUM_PATH picks another browser (the package holds a Linux x64 build only); the packaged one otherwise. */
export function packagedChromium(): BrowserExecutable {
  if (process.env.CHROMIUM_PATH) return { executablePath: process.env.CHROMIUM_PATH, env: process.env };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `@sparticuz/chromium ships a Linux x64 Chromium only; on ${process.platform}-${process.arch} set CHROMIUM_PATH to a Chromium or Chrome binary`,
    );
  }
  const { version } = JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string };
  const dir = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'relaybox-chromium', version);
  if (!existsSync(path.join(dir, 'chromium'))) unpack(dir);
  return {
    executablePath: path.join(dir, 'chromium'),
    // The build's own NSS/NSPR/expat (made for Amazon Linux, glibc 2.34+): Debian's libnss3 is then not needed.
    env: {
      ...process.env,
      LD_LIBRARY_PATH: path.join(dir, 'al2023', 'lib'),
      FONTCONFIG_FILE: path.join(dir, 'fonts.conf'),
    },
  };
}

/**
 * The package's `inflate()` unpacks into os.tmpdir(), so it runs in a child whose TMPDIR is a staging folder;
 * the rename makes the unpacked browser appear whole, even if two test processes race.
 */
function unpack(dir: string): void {
  const staging = `${dir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const bin = path.join(PACKAGE_DIR, 'bin');
  const script = `import { inflate } from '@sparticuz/chromium';
for (const file of ['chromium.br', 'al2023.tar.br', 'fonts.tar.br']) await inflate(${JSON.stringify(bin)} + '/' + file);`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, TMPDIR: staging },
    stdio: 'inherit',
  });
  writeFileSync(
    path.join(staging, 'fonts.conf'),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${dir}/fonts</dir><cachedir>${dir}/fonts-cache</cachedir></fontconfig>\n`,
  );
  try {
    renameSync(staging, dir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(path.join(dir, 'chromium'))) throw err;
  }
}
