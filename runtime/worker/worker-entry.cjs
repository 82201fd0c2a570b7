// Piscina's worker entry. Piscina loads its file with require() first, and Node 24's require() of an
// ES module (worker.ts) intermittently failed a native assertion (ModuleWrap::CreateRequiredModuleFacade)
// that aborted the whole runtime process. This CommonJS entry loads worker.ts with import() instead.
'use strict';

const worker = import('./worker.ts');

module.exports = async function run(task) {
  return (await worker).default(task);
};
