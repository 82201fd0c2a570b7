// JSON read exactly (issue 39): integers past 2^53 (1 ETH is 10^18 wei) kept as their decimal text, for the request
// body (src/http/json-body.ts) and the config and network files (src/config/read-file.ts) alike.
import { noteNonIntegerNotation } from './compile.ts';

const INTEGER_LITERAL = /^-?\d+$/;
/**
 * A number the reviver would change or note: 16+ digits (maybe past 2^53), a fraction or an exponent. A number token
 * follows `:`, `[`, `,` or opens the text; a match inside a string only sends the text the slow way, never wrongly
 * the fast way.
 */
const NEEDS_REVIVER = /(?:^|[:[,])\s*-?(?:\d{16}|\d+[.eE])/;

/**
 * JSON.parse rounds integers above 2^53. Node 24's reviver sees each number's source text, so such integers are kept
 * as their exact decimal string; the schemas accept amounts both as numbers and as digit strings. An integer written
 * as `1e3` or `7.0` is left a number (plugin params are any JSON) but noted, so integer fields can refuse it.
 * Throws JSON.parse's SyntaxError.
 */
export function parseExactJson(text: string): unknown {
  // Most texts hold no such number: the native parse without a reviver gives the same value, several times faster.
  if (!NEEDS_REVIVER.test(text)) return JSON.parse(text);
  return JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value !== 'number' || context?.source === undefined) return value;
    if (INTEGER_LITERAL.test(context.source)) return Number.isSafeInteger(value) ? value : context.source;
    if (Number.isInteger(value)) noteNonIntegerNotation(this, key);
    return value;
  });
}
