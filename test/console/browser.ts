// The console's browser tests' shared parts: one packaged headless Chromium per file, signing in, an axe-core audit
// of the page as it is, and screenshots when CONSOLE_SCREENSHOTS names a folder.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/config/config.ts';
import { packagedChromium } from '../operations/packaged-chromium.ts';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Set to a folder to write the screenshots docs/console.md shows (CONSOLE_SCREENSHOTS=docs/console). */
export const SHOTS = process.env.CONSOLE_SCREENSHOTS;
/** Set to a folder to write a screenshot of each page there (PNG), for a review. */
const PAGE_SHOTS = process.env.CONSOLE_PAGE_SHOTS;
if (SHOTS) mkdirSync(SHOTS, { recursive: true });
/** Set to a file to write every axe violation found (any impact) there, as JSON. */
const AXE_OUT = process.env.CONSOLE_AXE_OUT;
const AXE = path.join(PROJECT_ROOT, 'node_modules', 'axe-core', 'axe.min.js');

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Every URL a page of this browser requested. */
  requests: string[];
  /** Script errors and console errors (a CSP refusal is one). */
  problems: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launch(): Promise<Browser> {
  const { executablePath, env } = packagedChromium();
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-console-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    env,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 860 },
  });
  const requests: string[] = [];
  const problems: string[] = [];
  context.on('request', (req) => requests.push(req.url()));
  const watch = (p: Page) => {
    // Generous: a loaded machine is slow; nothing here asserts a duration.
    p.setDefaultTimeout(60_000);
    p.on('pageerror', (err) => problems.push(err.message));
    p.on('console', (msg) => {
      if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) problems.push(msg.text());
    });
    return p;
  };
  const page = watch(context.pages()[0] ?? (await context.newPage()));
  return {
    context,
    page,
    requests,
    problems,
    newPage: async () => watch(await context.newPage()),
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export async function signIn(p: Page, url: string, key: string) {
  await p.goto(`${url}/console`);
  await p.locator('input[name="api-key"]').fill(key);
  await p.locator('form.login button[type="submit"]').click();
  await p.locator('header nav').waitFor();
}

export const axeInstalled = () => existsSync(AXE);
const found: Record<string, unknown[]> = {};

/**
 * Runs axe-core in the page (injected through the DevTools protocol: the page's CSP allows no injected script) and
 * fails on any serious or critical violation. Every violation is kept for CONSOLE_AXE_OUT.
 */
export async function audit(p: Page, name: string): Promise<void> {
  if (!axeInstalled()) return;
  const cdp = await p.context().newCDPSession(p);
  await cdp.send('Runtime.evaluate', { expression: readFileSync(AXE, 'utf8') });
  await cdp.detach();
  const violations = await p.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: unknown,
            o: unknown,
          ): Promise<{
            violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.length,
      targets: v.nodes.slice(0, 3).map((n) => n.target),
    }));
  });
  found[name] = violations;
  if (AXE_OUT) writeFileSync(AXE_OUT, JSON.stringify(found, null, 2));
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `${name}: serious or critical accessibility violations`);
}

export async function shot(p: Page, name: string): Promise<void> {
  if (!PAGE_SHOTS) return;
  mkdirSync(PAGE_SHOTS, { recursive: true });
  await p.screenshot({ path: path.join(PAGE_SHOTS, `${name}.png`), fullPage: true });
}
