// Plugins: state (loaded, the compiler's error, quarantined and why), calls per minute, error rate, p50/p99; a
// plugin's recent calls with status, duration, result, logs and traces; a form to call it with JSON params.
import { useEffect, useState } from 'preact/hooks';
import { api, enc, type Answer } from '../api.ts';
import { may, type Me } from '../access.ts';
import { Action, Bars, Check, ErrorLine, Field, FormDialog, When, e } from '../ui.ts';

interface Plugin {
  id: string;
  path: string;
  state: string;
  error: { code: string; message: string } | null;
  timeout: number;
  emit_logs: boolean;
  emit_traces: boolean;
  raw_response: boolean;
  allow_get_invocation: boolean;
  forward_logs: boolean;
  config_keys?: string[];
}
interface Minute {
  at: number;
  counts: Record<string, number>;
  latency: Record<string, { p50: number; p99: number; n: number }>;
}
interface Call {
  request_id: string;
  at: string;
  outcome: string;
  duration_ms: number;
  result: string | null;
  error: { code: string; message: string } | null;
  logs: Array<{ level: string; message: string }>;
  traces: string[];
  truncated: boolean;
}

function stats(minutes: Minute[]) {
  const calls = minutes.reduce((n, m) => n + (m.counts.calls ?? 0), 0);
  const errors = minutes.reduce((n, m) => n + (m.counts.errors ?? 0), 0);
  const busy = minutes.filter((m) => m.latency.duration_ms);
  const p50s = busy.map((m) => m.latency.duration_ms!.p50).sort((a, b) => a - b);
  return {
    perMinute: minutes.map((m) => m.counts.calls ?? 0),
    calls,
    errorRate: calls ? `${Math.round((errors / calls) * 100)}%` : '—',
    p50: p50s.length ? `${Math.round(p50s[Math.floor(p50s.length / 2)]!)} ms` : '—',
    p99: busy.length ? `${Math.round(Math.max(...busy.map((m) => m.latency.duration_ms!.p99)))} ms` : '—',
  };
}

function stateOf(p: Plugin) {
  if (p.state === 'ready') return e('span', { class: 'badge ok' }, 'loaded');
  const quarantined = p.error?.code === 'PLUGIN_QUARANTINED';
  return [
    e('span', { class: 'badge bad' }, quarantined ? 'quarantined' : 'error'),
    p.error ? e('div', { class: 'plugin-error' }, `${p.error.code}: ${p.error.message}`) : null,
  ];
}

function CallView({ call }: { call: Call }) {
  return e(
    'li',
    { class: `call o-${call.outcome}`, 'data-request': call.request_id },
    e(
      'div',
      null,
      e(When, { at: call.at, precise: true }),
      ' ',
      e('span', { class: `badge ${call.outcome === 'ok' ? 'ok' : 'bad'}` }, call.outcome),
      ` ${call.duration_ms} ms`,
      call.truncated ? e('span', { class: 'muted' }, ' (cut)') : null,
    ),
    call.error ? e('div', { class: 'call-error' }, `${call.error.code}: ${call.error.message}`) : null,
    call.result !== null ? e('pre', { class: 'call-result', tabIndex: 0 }, call.result) : null,
    call.logs.length
      ? e(
          'section',
          { class: 'call-logs', 'aria-label': 'Logs' },
          e('h4', null, `Logs (${call.logs.length})`),
          e(
            'ul',
            { class: 'logs' },
            call.logs.map((l) =>
              e('li', { class: `log l-${l.level}` }, e('span', { class: 'level' }, `[${l.level}] `), l.message),
            ),
          ),
        )
      : null,
    call.traces.length
      ? e(
          'section',
          { class: 'call-traces', 'aria-label': 'Traces' },
          e('h4', null, `Traces (${call.traces.length})`),
          e(
            'ul',
            { class: 'traces' },
            call.traces.map((t) => e('li', { class: 'mono' }, t)),
          ),
        )
      : null,
  );
}

function CallForm({ me, plugin, done }: { me: Me; plugin: Plugin; done: () => void }) {
  const [params, setParams] = useState('{}');
  const [answer, setAnswer] = useState<Answer<unknown> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const allowed = may(me, 'plugin', 'execute', plugin.id);
  const call = async () => {
    setError(null);
    setAnswer(null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(params);
    } catch (err) {
      setError(new Error(`params are not JSON: ${(err as Error).message}`));
      return;
    }
    try {
      setAnswer(await api(`/plugins/${enc(plugin.id)}/call`, { method: 'POST', body: { params: parsed } }));
    } catch (err) {
      setError(err);
    }
    done();
  };
  return e(
    'form',
    { class: 'call-form', onSubmit: (ev: Event) => (ev.preventDefault(), void call()) },
    e(
      'label',
      null,
      'params (JSON)',
      e('textarea', {
        name: 'params',
        rows: 4,
        value: params,
        onInput: (ev: Event) => setParams((ev.target as HTMLTextAreaElement).value),
      }),
    ),
    e(Action, { name: 'call', allowed, onClick: () => void call() }, `Call ${plugin.id}`),
    e(ErrorLine, { error }),
    answer ? e('pre', { class: 'call-answer', tabIndex: 0 }, JSON.stringify(answer.data, null, 2)) : null,
  );
}

/** Changed settings only; `config` replaced only when given (its values are never shown, only its keys). */
function SettingsDialog({ plugin, onClose, onDone }: { plugin: Plugin; onClose: () => void; onDone: () => void }) {
  const [timeout, setTimeoutText] = useState(String(plugin.timeout));
  const [flags, setFlags] = useState({
    emit_logs: plugin.emit_logs,
    emit_traces: plugin.emit_traces,
    raw_response: plugin.raw_response,
    allow_get_invocation: plugin.allow_get_invocation,
    forward_logs: plugin.forward_logs,
  });
  const [config, setConfig] = useState('');
  const submit = async () => {
    const body: Record<string, unknown> = {};
    if (timeout.trim() !== String(plugin.timeout))
      body.timeout = /^\d+$/.test(timeout.trim()) ? Number(timeout.trim()) : timeout;
    for (const [k, v] of Object.entries(flags)) if (v !== plugin[k as keyof typeof flags]) body[k] = v;
    if (config.trim()) {
      try {
        body.config = JSON.parse(config);
      } catch (err) {
        throw new Error(`config is not JSON: ${(err as Error).message}`);
      }
    }
    if (Object.keys(body).length > 0) await api(`/plugins/${enc(plugin.id)}`, { method: 'PATCH', body });
    onDone();
  };
  const flag = (k: keyof typeof flags, label: string) =>
    e(Check, { label, name: k, checked: flags[k], set: (v) => setFlags((f) => ({ ...f, [k]: v })) });
  return e(
    FormDialog,
    { title: `Settings of plugin ${plugin.id}`, name: 'plugin-settings', submit, onClose },
    e(Field, {
      label: 'Timeout (seconds, 1-3600)',
      name: 'timeout',
      kind: 'number',
      value: timeout,
      set: setTimeoutText,
      autofocus: true,
    }),
    flag('emit_logs', 'Return logs with each call (emit_logs)'),
    flag('emit_traces', 'Return traces with each call (emit_traces)'),
    flag('raw_response', 'Answer the result as is, without the envelope (raw_response)'),
    flag('allow_get_invocation', 'Allow calls with GET (allow_get_invocation)'),
    flag('forward_logs', "Write the plugin's logs to the service log (forward_logs)"),
    e(Field, {
      label: `Config (JSON object; empty: unchanged${plugin.config_keys?.length ? `; now has ${plugin.config_keys.join(', ')}` : ''})`,
      name: 'config',
      kind: 'textarea',
      value: config,
      set: setConfig,
      hint: 'replaces the whole config; its values are never shown again',
    }),
  );
}

export function Plugins({ me, pluginId }: { me: Me; pluginId: string | undefined }) {
  const [plugins, setPlugins] = useState<Plugin[]>([]);
  const [detail, setDetail] = useState<Record<string, { calls: Call[]; minutes: Minute[]; since?: string }>>({});
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<Plugin | null>(null);
  const load = async () => {
    try {
      const list = (await api<Plugin[]>('/plugins?per_page=100')).data;
      setPlugins(list);
      const read = await Promise.all(
        list.map(
          async (p) =>
            [
              p.id,
              (await api<{ calls: Call[]; minutes: Minute[]; since?: string }>(`/plugins/${enc(p.id)}/calls`)).data,
            ] as const,
        ),
      );
      setDetail(Object.fromEntries(read));
    } catch (err) {
      setError(err);
    }
  };
  useEffect(() => {
    void load();
    const timer = setInterval(load, 10_000);
    return () => clearInterval(timer);
  }, []);
  const selected = plugins.find((p) => p.id === pluginId);
  const since = Object.values(detail).find((d) => d.since)?.since;
  return e(
    'div',
    { class: 'plugins' },
    e(ErrorLine, { error }),
    e('h2', null, 'Plugins'),
    e(
      'p',
      { class: 'muted since' },
      'The last hour, per minute (UTC), as this instance counted it. Kept in memory: a restart starts it empty',
      since ? [' (counting since ', e(When, { at: since }), ').'] : '.',
    ),
    e(
      'table',
      { class: 'plugin-list' },
      e(
        'thead',
        null,
        e(
          'tr',
          null,
          ['plugin', 'state', 'calls (1 h)', 'error rate', 'p50', 'p99', 'calls / min'].map((t) =>
            e('th', { scope: 'col' }, t),
          ),
        ),
      ),
      e(
        'tbody',
        null,
        plugins.map((p) => {
          const s = stats(detail[p.id]?.minutes ?? []);
          const start = detail[p.id]?.minutes?.[0]?.at;
          return e(
            'tr',
            { key: p.id, 'data-plugin': p.id },
            e('td', null, e('a', { href: `#/plugins/${enc(p.id)}` }, p.id), e('div', { class: 'muted' }, p.path)),
            e('td', null, stateOf(p)),
            e('td', null, String(s.calls)),
            e('td', null, s.errorRate),
            e('td', null, s.p50),
            e('td', null, s.p99),
            e('td', null, e(Bars, { title: '', values: s.perMinute, start })),
          );
        }),
      ),
    ),
    selected
      ? e(
          'section',
          { class: 'plugin-detail', 'aria-label': `Plugin ${selected.id}` },
          e(
            'div',
            { class: 'title-row' },
            e('h2', null, `Plugin ${selected.id}`),
            e(
              Action,
              {
                name: 'settings',
                class: 'secondary',
                allowed: may(me, 'plugin', 'manage', selected.id),
                onClick: () => setEditing(selected),
              },
              'Settings',
            ),
          ),
          e(
            'p',
            { class: 'muted settings' },
            `timeout ${selected.timeout} s · logs ${selected.emit_logs ? 'returned' : 'not returned'} · traces ${selected.emit_traces ? 'returned' : 'not returned'}${selected.raw_response ? ' · raw response' : ''}${selected.allow_get_invocation ? ' · GET allowed' : ''}`,
          ),
          may(me, 'plugin', 'execute', selected.id)
            ? e(CallForm, { me, plugin: selected, done: () => void load() })
            : null,
          e('h3', null, 'Recent calls'),
          e(
            'ol',
            { class: 'calls' },
            (detail[selected.id]?.calls ?? []).map((call) => e(CallView, { key: call.request_id, call })),
          ),
        )
      : e('p', { class: 'muted' }, 'Choose a plugin to see its recent calls and call it.'),
    editing
      ? e(SettingsDialog, {
          plugin: editing,
          onClose: () => setEditing(null),
          onDone: () => (setEditing(null), void load()),
        })
      : null,
  );
}
