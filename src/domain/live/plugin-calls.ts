// The most recent calls of each plugin, in a bounded in-memory ring, and its last hour minute by minute (calls,
// errors, p50/p99 duration). What the console's plugin page shows; never stored. Everything kept is cut to a size.
import { createMinuteSeries, type MinutePoint, type MinuteSeries } from './minute-series.ts';
import type { PluginService } from '../plugins/service.ts';
import { AppError, PluginError } from '../../errors.ts';

/** Calls kept per plugin. */
export const RECENT_CALLS = 50;
const MAX_LINES = 100;
const MAX_TEXT = 4_000;

export interface PluginCallReport {
  request_id: string;
  /** 'ok', or how it failed: 'plugin_error', 'timeout', 'memory', 'overload'. */
  outcome: string;
  duration_ms: number;
  /** The result as JSON text (cut), or null for a failure. */
  result: string | null;
  error: { code: string; message: string } | null;
  logs: ReadonlyArray<{ level: string; message: string }> | undefined;
  traces: ReadonlyArray<unknown> | undefined;
}

export interface PluginCallEntry {
  request_id: string;
  at: string;
  outcome: string;
  duration_ms: number;
  result: string | null;
  error: { code: string; message: string } | null;
  logs: Array<{ level: string; message: string }>;
  traces: string[];
  /** True when result, logs or traces were cut to fit. */
  truncated: boolean;
}

export interface PluginCallLog {
  record(pluginId: string, report: PluginCallReport, now?: number): void;
  recent(pluginId: string): PluginCallEntry[];
  minutes(pluginId: string, now?: number): MinutePoint[];
}

/** A call as the ring keeps it: cut to size when recorded, dated when read (calls are many, reads are few). */
type KeptCall = Omit<PluginCallEntry, 'at' | 'logs' | 'traces'> & {
  at: number;
  logs: PluginCallEntry['logs'] | undefined;
  traces: string[] | undefined;
};

function keptOf(report: PluginCallReport, now: number): KeptCall {
  let truncated = false;
  const keep = (text: string) => {
    if (text.length <= MAX_TEXT) return text;
    truncated = true;
    return text.slice(0, MAX_TEXT);
  };
  // Most calls log and trace nothing: no lines, no arrays.
  const logs = report.logs?.length
    ? report.logs.slice(0, MAX_LINES).map((l) => ({ level: keep(String(l.level)), message: keep(String(l.message)) }))
    : undefined;
  const traces = report.traces?.length
    ? report.traces.slice(0, MAX_LINES).map((t) => keep(JSON.stringify(t) ?? 'null'))
    : undefined;
  truncated ||= (report.logs?.length ?? 0) > MAX_LINES || (report.traces?.length ?? 0) > MAX_LINES;
  return {
    request_id: report.request_id,
    at: now,
    outcome: report.outcome,
    duration_ms: Math.round(report.duration_ms * 10) / 10,
    result: report.result === null ? null : keep(report.result),
    error: report.error && { code: keep(report.error.code), message: keep(report.error.message) },
    logs,
    traces,
    truncated,
  };
}

function entryOf(kept: KeptCall): PluginCallEntry {
  const { request_id, at, outcome, duration_ms, result, error, logs, traces, truncated } = kept;
  return {
    request_id,
    at: new Date(at).toISOString(),
    outcome,
    duration_ms,
    result,
    error,
    logs: logs ?? [],
    traces: traces ?? [],
    truncated,
  };
}

export function createPluginCallLog(): PluginCallLog {
  // `kept` is a ring: call n is at n % RECENT_CALLS, overwritten in place (no shifting along on every call).
  const rings = new Map<string, { kept: KeptCall[]; calls: number; series: MinuteSeries }>();
  const of = (pluginId: string) => {
    let ring = rings.get(pluginId);
    if (!ring) rings.set(pluginId, (ring = { kept: [], calls: 0, series: createMinuteSeries() }));
    return ring;
  };
  return {
    record(pluginId, report, now = Date.now()) {
      const ring = of(pluginId);
      ring.kept[ring.calls++ % RECENT_CALLS] = keptOf(report, now);
      ring.series.count('calls', now);
      if (report.outcome !== 'ok') ring.series.count('errors', now);
      ring.series.sample('duration_ms', report.duration_ms, now);
    },
    recent(pluginId) {
      const ring = rings.get(pluginId);
      const out: PluginCallEntry[] = [];
      // Newest first.
      if (ring)
        for (let n = ring.calls - 1; n >= 0 && n >= ring.calls - RECENT_CALLS; n--)
          out.push(entryOf(ring.kept[n % RECENT_CALLS]!));
      return out;
    },
    minutes: (pluginId, now = Date.now()) => (rings.get(pluginId)?.series ?? createMinuteSeries()).read(now),
  };
}

/**
 * The plugin service with each finished call reported to `log`, its answer and failure passed on unchanged. A call
 * that never reached a plugin (unknown id, a method it does not allow) is not a plugin call and is not kept.
 */
export function recordCalls(service: PluginService, log: PluginCallLog): PluginService {
  const call: PluginService['call'] = async (pluginId, input, ...rest) => {
    const t0 = performance.now();
    try {
      const answer = await service.call(pluginId, input, ...rest);
      log.record(pluginId, {
        request_id: input.requestId,
        outcome: 'ok',
        duration_ms: performance.now() - t0,
        result: answer.result,
        error: null,
        logs: answer.metadata?.logs,
        traces: answer.metadata?.traces,
      });
      return answer;
    } catch (err) {
      const failure = failureOf(err);
      if (failure)
        log.record(pluginId, {
          request_id: input.requestId,
          ...failure,
          duration_ms: performance.now() - t0,
          result: null,
        });
      throw err;
    }
  };
  return { ...service, call };
}

/** A failure as kept, classified as the plugin service's metrics count it (domain/plugins/service.ts). */
function failureOf(err: unknown): Pick<PluginCallReport, 'outcome' | 'error' | 'logs' | 'traces'> | undefined {
  if (err instanceof PluginError) {
    const outcome =
      err.code === 'TIMEOUT' ? 'timeout' : err.code === 'MEMORY_LIMIT_EXCEEDED' ? 'memory' : 'plugin_error';
    return { outcome, error: { code: err.code, message: err.message }, logs: err.logs, traces: err.traces };
  }
  if (err instanceof AppError && (err.code === 'RUNTIME_UNAVAILABLE' || err.code === 'PLUGIN_BUSY')) {
    return { outcome: 'overload', error: { code: err.code, message: err.reason }, logs: undefined, traces: undefined };
  }
  return undefined;
}
