// The plugin runtime of a test app that calls no plugin (build() without `runtime: true`): no process is forked.
// It says so instead of pretending: it serves nothing (readiness reports the runtime down), lists no plugin, and a
// plugin call gets the service's own 503 naming the missing option, so a test that needed the runtime fails clearly.
import type { createRuntimeClient, RuntimeClient } from '../../src/plugin-host/client.ts';
import { unavailable } from '../../src/plugin-host/answer-check.ts';

const REASON = 'this test app has no plugin runtime: pass runtime: true to build()';

export const startNoRuntime: typeof createRuntimeClient = async () => notStarted();

function notStarted(): RuntimeClient {
  return {
    pid: undefined,
    call: () => Promise.reject(unavailable(REASON)),
    plugins: () => [],
    // Never up: a test awaiting it without asking for the runtime fails at once, saying why.
    ready: () => Promise.reject(unavailable(REASON)),
    serving: () => false,
    hostCallsInFlight: () => 0,
    configure: () => Promise.resolve(),
    close: async (drained) => {
      await drained?.catch(() => {});
    },
  };
}
