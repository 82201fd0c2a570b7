// Supervision of the runtime process: starts it, restarts it when it dies (backing off when it keeps dying), keeps a
// booted standby ready to take over, hears what it reports about itself, and stops it on close.
import type { ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { ChildMessage, OomReport, RuntimeOptions } from '../../runtime/protocol.ts';
import { unavailable } from './answer-check.ts';
import type { CallProtocol, StatusMessage } from './call-protocol.ts';
import type { CrashLedger } from './crash-ledger.ts';
import { goneError } from './crash-recovery.ts';
import { createReadiness, type Readiness } from './readiness.ts';
import type { RegistryMirror } from './registry.ts';
import { forkRuntime, onceGone, readOomReports, stopRuntime } from './runtime-process.ts';

const STARTUP_TIMEOUT_MS = 20_000;
/**
 * The standby runtime is forked this long after the active one is ready, so as not to slow its start; at once when
 * the active one replaced a runtime that died (a crashing tenant may kill it again within seconds).
 */
const STANDBY_DELAY_MS = 5_000;

/** What the supervisor reports as it goes (metrics); plain callbacks, so the plugin host needs no metrics library. */
export interface RuntimeObserver {
  restarted(): void;
  /** Calls handed to the runtime and not answered yet (queued or running there). */
  inFlight(count: number): void;
  /** A sandbox worker stopped answering and was replaced. */
  workerStalled?(): void;
  /** A plugin was quarantined for crashing the runtime. */
  quarantined?(pluginId: string): void;
}

export interface Supervisor {
  /** Pid of the runtime process while it serves. */
  readonly pid: number | undefined;
  /** The runtime process serving calls now; undefined while it (re)starts. */
  active(): ChildProcess | undefined;
  /** A runtime that served is being replaced (false during the first start and once closing). */
  restarting(): boolean;
  /** Starts the first runtime process; resolves once it is ready, or after STARTUP_TIMEOUT_MS (calls answer 503 until it is). */
  boot(): Promise<void>;
  ready(): Promise<void>;
  /** Up, with a fresh health report (readiness). */
  serving(): boolean;
  /** Stops supervising at once, waits for `drained`, fails the calls still waiting, then stops the runtime process. */
  close(drained?: Promise<unknown>): Promise<void>;
}

export interface SupervisorDeps {
  config: Config;
  logger: Logger;
  observer: RuntimeObserver;
  calls: CallProtocol;
  registry: RegistryMirror;
  crashes: CrashLedger;
  /** What the next runtime process starts with (the operator's entries, the quarantine, the warm cache as they are now). */
  options(): RuntimeOptions;
}

/** What a runtime process reports about itself; `onReady` runs once the registry and readiness know it serves. */
function onStatus(
  deps: SupervisorDeps,
  readiness: Readiness,
  from: ChildProcess,
  msg: StatusMessage,
  onReady: () => void,
): void {
  const { config, logger, observer, registry } = deps;
  switch (msg.t) {
    case 'health':
      readiness.health(msg.responsive);
      return;
    case 'worker-stalled':
      observer.workerStalled?.();
      return;
    case 'cache':
      registry.remember(msg.plugins);
      return;
    case 'plugins':
      registry.settled(msg.plugins);
      return;
    case 'ready':
      registry.loaded(msg.plugins);
      readiness.ready(config.pluginRuntime.threads);
      logger.info(
        { pid: from.pid, plugins: msg.plugins.length, mode: config.pluginRuntime.contextMode },
        'plugin runtime ready',
      );
      onReady();
      return;
    case 'log':
      logger[msg.level]({ ...msg.data }, msg.msg);
      return;
  }
}

/** A worker exhausted the sandbox memory and the process is ending: its calls are marked, its plugin blamed and maybe quarantined. */
function onOom(deps: SupervisorDeps, report: OomReport, oomCalls: Set<number>, blamed: Set<string>): void {
  const { logger, crashes, observer } = deps;
  for (const id of report.calls) oomCalls.add(id);
  if (typeof report.plugin === 'string') blamed.add(report.plugin);
  logger.error(
    { plugin: report.plugin, calls: report.calls.length },
    'plugin exhausted sandbox memory: the runtime process is restarting',
  );
  if (
    typeof report.plugin === 'string' &&
    typeof report.hash === 'string' &&
    crashes.record(report.plugin, report.hash, report.inspect === true)
  ) {
    logger.error(
      { plugin: report.plugin },
      'plugin quarantined: it crashed the runtime too often; it stays so until its file changes',
    );
    observer.quarantined?.(report.plugin);
  }
}

/**
 * Delay before the next restart: none after a runtime that served 10 s or more, else doubling up to 5 s. A runtime
 * that died before it was ever ready served 0 ms: one that can never start is retried ever more slowly, not in a loop.
 */
function createBackoff(): (servedMs: number) => number {
  let failures = 0;
  return (servedMs) => {
    if (servedMs >= 10_000) failures = 0;
    const delay = failures === 0 ? 0 : Math.min(5000, 100 * 2 ** failures);
    failures++;
    return delay;
  };
}

/** Waits for the first runtime to be ready, at most STARTUP_TIMEOUT_MS: the service starts either way. */
async function awaitStartup(readiness: Readiness, logger: Logger): Promise<void> {
  let startupTimer: NodeJS.Timeout | undefined;
  await Promise.race([
    readiness.whenReady(),
    new Promise<void>((resolve) => (startupTimer = setTimeout(resolve, STARTUP_TIMEOUT_MS))),
  ]);
  clearTimeout(startupTimer);
  if (!readiness.up) logger.warn('plugin runtime not ready yet; plugin calls answer 503 until it is');
}

export function createSupervisor(deps: SupervisorDeps): Supervisor {
  const { logger, observer, calls } = deps;
  const readiness = createReadiness();
  let child: ChildProcess | undefined;
  let standby: ChildProcess | undefined;
  let closing = false;
  const backoff = createBackoff();
  let restartTimer: NodeJS.Timeout | undefined;
  let standbyTimer: NodeJS.Timeout | undefined;
  /** The runtime starting now replaces one that died. */
  let replacing = false;

  /** Forks a runtime process and supervises it; it serves once sent 'init' (a standby gets 'prepare' first). */
  function spawn(): ChildProcess {
    const oomCalls = new Set<number>();
    const blamed = new Set<string>();
    const proc = forkRuntime();
    const channel = calls.open(proc, (msg) => onStatus(deps, readiness, proc, msg, prepareStandby));
    readOomReports(proc, (report) => onOom(deps, report, oomCalls, blamed));
    proc.on('message', (msg: ChildMessage) => channel.receive(msg));
    proc.on('error', (err) => logger.error({ err }, 'plugin runtime process error'));
    onceGone(proc, (code, signal) => {
      channel.close();
      if (proc === standby) {
        standby = undefined;
        return;
      }
      // How long the process that died served: 0 when it never became ready (readyAt is then an earlier process's).
      let served = 0;
      if (child === proc) {
        if (readiness.up) served = Date.now() - readiness.readyAt;
        child = undefined;
        readiness.down();
      }
      calls.rejectCalls(proc, (id, call) => goneError({ oomCalls, blamed, closing }, id, call));
      // Shutting down: an exit is expected, never a reason to start another runtime.
      if (closing) return;
      logger.error({ code, signal }, 'plugin runtime process exited; restarting it');
      const delay = backoff(served);
      observer.restarted();
      replacing = true;
      restartTimer = setTimeout(start, delay);
    });
    return proc;
  }

  /**
   * Starts serving: promotes the standby if there is one (booted, its workers already up: a restart then takes
   * a fraction of a second with any number of plugins), else forks a process.
   */
  function start(): void {
    const proc = standby?.connected ? standby : spawn();
    if (proc !== standby) standby?.kill('SIGKILL');
    standby = undefined;
    child = proc;
    calls.send(proc, { t: 'init', options: deps.options() });
  }

  /** Keeps one booted runtime process in reserve, made once the active one has settled. */
  function prepareStandby(): void {
    clearTimeout(standbyTimer);
    const delay = replacing ? 0 : STANDBY_DELAY_MS;
    replacing = false;
    if (!deps.config.pluginRuntime.standby) return;
    standbyTimer = setTimeout(() => {
      if (closing || standby || !readiness.up) return;
      standby = spawn();
      calls.send(standby, { t: 'prepare', options: deps.options() });
    }, delay);
    standbyTimer.unref();
  }

  return {
    get pid() {
      return readiness.up ? child?.pid : undefined;
    },
    active: () => (readiness.up && child?.connected ? child : undefined),
    restarting: () => !closing && readiness.readyAt > 0 && !(readiness.up && child?.connected),
    boot() {
      start();
      return awaitStartup(readiness, logger);
    },
    // A process that died is disconnected before its 'close' is handled (readiness.down): a call held meanwhile waits
    // for the next runtime, not for the one that is gone (it would find none serving and answer 503 at once).
    ready: () => (readiness.up && child?.connected ? Promise.resolve() : readiness.nextReady()),
    serving: () => readiness.up && child !== undefined && readiness.fresh(),
    async close(drained) {
      closing = true;
      clearTimeout(restartTimer);
      clearTimeout(standbyTimer);
      standby?.kill('SIGKILL');
      await drained?.catch(() => {});
      // A call still running here outlived the grace period (its request is gone): say so, not "worker terminated".
      calls.rejectCalls(undefined, () =>
        unavailable('the service is shutting down; the call did not finish within the grace period'),
      );
      const proc = child;
      if (proc) await stopRuntime(proc, (msg) => calls.send(proc, msg));
    },
  };
}
