// Serves the operator console at /console: index.html (never cached) and its hashed script and stylesheet (cached
// for a year), under a Content-Security-Policy that allows nothing inline, nothing from elsewhere, and no framing.
// The console holds no authority of its own: every action it offers is an API call made with the key typed into it.
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { buildConsole, type ConsoleBundle } from './bundle.ts';

export const CONSOLE_PATH = '/console';

const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** Hashed names: `app.<hash>.js`, `app.<hash>.css`. */
const ASSET = /^\/assets\/([A-Za-z0-9_-]+\.[A-Z0-9]+\.(?:js|css))$/;

/** Mounted at CONSOLE_PATH. `build` is the bundler (tests may count its calls); built once, on the first request. */
export function consoleHandler(logger: Logger, build: () => Promise<ConsoleBundle> = buildConsole): RequestHandler {
  let bundle: Promise<ConsoleBundle> | undefined;
  const ready = () => {
    bundle ??= build().then(
      (b) => {
        logger.info({ bytes: b.bytes, files: [...b.assets.keys()] }, 'console built');
        return b;
      },
      (err: unknown) => {
        bundle = undefined;
        throw err;
      },
    );
    return bundle;
  };
  return async (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    const asset = ASSET.exec(path);
    if (!asset && path !== '/' && path !== '') return next();
    const { html, assets } = await ready();
    res.set(SECURITY_HEADERS);
    if (asset) {
      const file = assets.get(asset[1]!);
      if (!file) return next();
      res.set({ 'Content-Type': file.type, 'Cache-Control': 'public, max-age=31536000, immutable' });
      res.send(file.body);
      return;
    }
    res.set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.send(html);
  };
}
