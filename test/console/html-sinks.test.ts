// The console renders data that others control (plugin logs, transaction data, relayer names, notification URLs):
// its code never hands a string to an HTML parser or to a script evaluator. The browser test shows the result; this
// keeps the sinks out of the source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/config.ts';

const SINKS =
  /\b(innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML|createContextualFragment|DOMParser|srcdoc)\b|document\.write|\beval\s*\(|new\s+Function\s*\(|setTimeout\(\s*['"`]/;

test('no console source file uses an HTML or script sink', () => {
  const dir = path.join(PROJECT_ROOT, 'console');
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && /\.(ts|html)$/.test(e.name),
  );
  assert.ok(files.length >= 10, 'the console sources are read');
  for (const f of files) {
    const text = readFileSync(path.join(f.parentPath, f.name), 'utf8');
    text
      .split('\n')
      .forEach((line, i) =>
        assert.doesNotMatch(line, SINKS, `${path.relative(PROJECT_ROOT, path.join(f.parentPath, f.name))}:${i + 1}`),
      );
  }
});

test('the page holds no inline script or style, which the CSP would refuse anyway', () => {
  const html = readFileSync(path.join(PROJECT_ROOT, 'console', 'index.html'), 'utf8');
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
});
