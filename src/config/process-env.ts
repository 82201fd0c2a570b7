// The one reader of the process's environment (test/architecture: no `process.env` outside src/config/). Everything
// else is handed the settings parsed from it (env.ts), or this environment where a variable is named at run time (a
// signer's `{ type: "env" }` secret, a plugin's service_env) or is Node's own (PATH, UV_THREADPOOL_SIZE).
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}
