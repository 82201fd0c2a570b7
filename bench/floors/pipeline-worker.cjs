// The pipeline floor's Piscina task (bench/floors/pipeline-floor.ts): one warm isolated-vm context per worker thread,
// its handler called synchronously on the call's JSON string, its answer a JSON string.
const ivm = require('isolated-vm');

const isolate = new ivm.Isolate({ memoryLimit: 64 });
const context = isolate.createContextSync();
context.evalSync(
  'globalThis.handler = (input) => JSON.stringify({ success: true, data: JSON.parse(input).params ?? null, error: null })',
);
const handler = context.global.getSync('handler', { reference: true });
module.exports = (input) =>
  handler.applySync(undefined, [input], { arguments: { copy: true }, result: { copy: true } });
