// STUB (owned by the runtime work): plugin use cases (call, list, get).
import type { Config } from '../../config.ts';
import type { RuntimeClient } from '../../runtime-client.ts';

export type PluginService = Record<string, never>;

export function createPluginService(_deps: { config: Config; runtime: RuntimeClient }): PluginService {
  return {};
}
