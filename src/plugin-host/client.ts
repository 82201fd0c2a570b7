// The plugin host's entry: composes the supervision of the runtime process (supervision.ts), the calls to it and its
// checked answers (call-protocol.ts, answer-check.ts), and the sandbox's calls back into the relayer API and the KV
// store (host-calls.ts, kv.ts). src/plugin-host/ is the only door from src/ into runtime/ (through runtime/protocol.ts).
import type { Logger } from 'pino';
import { processEnv, type Config } from '../config/config.ts';
import type { PluginCallInput, PluginCallResult, PluginRuntime } from '../domain/plugins/ports.ts';
import type { RelayerOperations } from '../domain/types.ts';
import type { KvRepo } from '../domain/kv/ports.ts';
import type { ConfiguredPlugin, PluginInfo, RuntimeFaults, RuntimeOptions } from '../../runtime/protocol.ts';
import { createCallProtocol } from './call-protocol.ts';
import { createCrashLedger } from './crash-ledger.ts';
import { createCrashRecovery } from './crash-recovery.ts';
import { createHostCallSession } from './host-calls.ts';
import { kvQuotas } from './kv.ts';
import { MAX_HOST_REPLY_BYTES, RUNTIME_LIMITS } from './limits.ts';
import { pluginEnvironment } from './plugin-env.ts';
import { createRegistryMirror } from './registry.ts';
import { createSupervisor, type RuntimeObserver } from './supervision.ts';

export type {
  CallInput,
  ConfiguredPlugin,
  LogEntry,
  PluginInfo,
  PluginSettings,
  RuntimeFaults,
  TraceEntry,
} from '../../runtime/protocol.ts';
export type { PluginCallResult } from '../domain/plugins/ports.ts';
export type { RuntimeObserver } from './supervision.ts';
export { RUNTIME_LIMITS } from './limits.ts';

export interface RuntimeClient extends PluginRuntime {
  /** Pid of the runtime process while it runs (tests kill it to prove recovery). */
  readonly pid: number | undefined;
  /**
   * Runs one plugin call in the sandbox. Rejects with a PluginError for the plugin's own failures and
   * limits (TIMEOUT, MEMORY_LIMIT_EXCEEDED, COMPILE_ERROR, …), an AppError for PLUGIN_NOT_FOUND,
   * METHOD_NOT_ALLOWED and RUNTIME_UNAVAILABLE (503 with Retry-After).
   * @example await runtime.call('echo', { params: { hi: 1 }, headers: {}, route: '', method: 'POST', query: {}, requestId: 'r1' })
   */
  call(pluginId: string, input: PluginCallInput): Promise<PluginCallResult>;
  /** The plugins the runtime last reported (kept while it restarts). */
  plugins(): PluginInfo[];
  /** Resolves once the runtime process is up and has loaded the plugins directory. */
  ready(): Promise<void>;
  /** True when the runtime is up and at least one of its workers answers (readiness). */
  serving(): boolean;
  /** Host calls (api/kv) running now on behalf of plugin calls; they end when their plugin call ends. */
  hostCallsInFlight(): number;
  /**
   * New operator entries for the plugins (settings changed through the API): applied at once, and at every restart.
   * Resolves once the runtime has reported its registry settled with them (or after 5 s, or at once when it is down).
   */
  configure(plugins: ConfiguredPlugin[]): Promise<void>;
  /**
   * Stops supervising at once (no restart from here on), keeps serving calls until `drained` settles (the app passes
   * "the HTTP requests in flight have ended"), then stops the runtime process.
   */
  close(drained?: Promise<unknown>): Promise<void>;
}

export async function createRuntimeClient(deps: {
  config: Config;
  logger: Logger;
  host: { relayers: RelayerOperations; kv: KvRepo };
  observer?: RuntimeObserver;
  /** The operator's plugin entries (default: the config file's; the app passes them with the stored API changes applied). */
  plugins?: ConfiguredPlugin[];
  /** The service's environment (default: this process's); a plugin receives the names its code names or its entry lists, never a credential (plugin-env.ts). */
  env?: NodeJS.ProcessEnv;
  /** Fault injection, from a test only (AppOverrides `runtimeFaults`): carried to every runtime process in its start message. */
  faults?: RuntimeFaults;
  /** How long a call arriving during a runtime restart waits for the next one (AppOverrides `runtimeRestartHoldMs`; 5 s). */
  restartHoldMs?: number;
}): Promise<RuntimeClient> {
  const { config, host } = deps;
  const observer = deps.observer ?? { restarted() {}, inFlight() {} };
  const logger = deps.logger.child({ component: 'plugin-runtime' });
  const rt = config.pluginRuntime;
  const crashes = createCrashLedger({ crashes: rt.quarantineCrashes, windowSec: rt.quarantineWindowSec });
  const registry = createRegistryMirror();
  let entries: ConfiguredPlugin[] = deps.plugins ?? config.file.plugins;
  const quotaOf = kvQuotas(config);
  const serviceEnv = pluginEnvironment(config, deps.env ?? processEnv());
  logger.debug(
    { withheld: serviceEnv.withheld },
    "plugins see the service's environment without these variables (credentials)",
  );
  const hostCalls = () =>
    createHostCallSession({
      relayers: host.relayers,
      kv: host.kv,
      logger,
      quotaOf,
      limits: { maxArgBytes: RUNTIME_LIMITS.maxHostArgBytes, maxReplyBytes: MAX_HOST_REPLY_BYTES },
    });
  const calls = createCallProtocol({ hostCalls, observer });
  const options = (): RuntimeOptions => ({
    pluginsDir: config.pluginsDir,
    plugins: entries.map((p) => ({ ...p })),
    contextMode: rt.contextMode,
    threads: rt.threads,
    concurrency: rt.concurrency,
    maxQueue: rt.maxQueue,
    limits: RUNTIME_LIMITS,
    defaults: {
      max_concurrent_calls: rt.maxConcurrentCalls,
      max_queued_calls: rt.maxQueuedCalls,
      kv_max_keys: rt.kvMaxKeys,
      kv_max_bytes: rt.kvMaxBytes,
    },
    quarantine: crashes.quarantined(),
    cache: registry.cached(),
    ...(deps.faults ? { faults: deps.faults } : {}),
    serviceEnv: serviceEnv.env,
  });
  const supervisor = createSupervisor({ config, logger, observer, calls, registry, crashes, options });
  const recovery = createCrashRecovery<PluginCallResult>({
    active: supervisor.active,
    restarting: supervisor.restarting,
    whenReady: supervisor.ready,
    maxHeld: rt.maxQueue,
    ...(deps.restartHoldMs !== undefined ? { holdMs: deps.restartHoldMs } : {}),
  });
  await supervisor.boot();

  return {
    get pid() {
      return supervisor.pid;
    },
    call(pluginId, input) {
      return recovery.run((proc) => calls.call(proc, pluginId, input));
    },
    plugins: () => registry.plugins(),
    configure(plugins) {
      entries = plugins;
      const proc = supervisor.active();
      if (!proc) return Promise.resolve();
      // The runtime answers a 'configure' with its settled registry; a runtime that does not within 5 s gets the entries at its next start anyway.
      const reported = registry.nextReport(5_000);
      calls.send(proc, { t: 'configure', plugins: entries.map((p) => ({ ...p })) });
      return reported;
    },
    ready: supervisor.ready,
    hostCallsInFlight: calls.hostCallsInFlight,
    serving: supervisor.serving,
    close(drained) {
      recovery.release();
      return supervisor.close(drained);
    },
  };
}
