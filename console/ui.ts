// Small shared pieces of the console's views: formatting, a bar chart in SVG, dialogs, error lines.
// Everything is rendered through preact as text nodes and attributes: no HTML string is ever parsed.
import { h, type ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export const e = h;

export const shortId = (id: unknown) =>
  typeof id === 'string' && id.length > 14 ? `${id.slice(0, 8)}..${id.slice(-4)}` : String(id ?? '');

const msOf = (iso: unknown): number =>
  typeof iso === 'string' ? Date.parse(iso) : typeof iso === 'number' ? iso : NaN;

/** "12 s ago" or "in 3 min"; the past and the future both said so. */
export function ago(iso: unknown, now = Date.now()): string {
  const t = msOf(iso);
  if (!Number.isFinite(t)) return '—';
  const diff = now - t;
  const s = Math.round(Math.abs(diff) / 1000);
  const span =
    s < 60
      ? `${s} s`
      : s < 3600
        ? `${Math.floor(s / 60)} min`
        : s < 86_400
          ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
          : `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  return diff >= 0 ? `${span} ago` : `in ${span}`;
}

/** UTC, to the second: `2026-01-01 12:00:03Z`. */
export const time = (iso: unknown) => {
  const t = msOf(iso);
  return Number.isFinite(t)
    ? new Date(t)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z')
    : '—';
};

/** To the millisecond: a transaction's steps are often within one second. */
export const clock = (iso: unknown) => {
  const t = msOf(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(11, 23) : '—';
};

/** A moment, relative and absolute: "12 s ago" then the UTC time (and the exact ISO time as the title). */
export function When({ at, precise }: { at: unknown; precise?: boolean }) {
  const t = msOf(at);
  if (!Number.isFinite(t)) return e('span', { class: 'muted' }, '—');
  const iso = new Date(t).toISOString();
  return e(
    'time',
    { class: 'when', dateTime: iso, title: iso },
    ago(iso),
    e('span', { class: 'abs' }, precise ? `${time(iso).slice(0, 11)}${clock(iso)}Z` : time(iso)),
  );
}

/** The smallest unit of each network type, its coin and the coin's decimals. */
export const UNIT_OF: Record<string, string> = { evm: 'wei', solana: 'lamport', stellar: 'stroop' };
const UNITS: Record<string, [string, number]> = {
  wei: ['ETH', 18],
  lamport: ['SOL', 9],
  stroop: ['XLM', 7],
  gwei: ['gwei', 9],
};

/** An amount in the smallest unit as its coin, exact (BigInt), cut to 6 decimals; '—' when it is no integer. */
export function coin(amount: unknown, unit: string, places = 6): string {
  const [name, decimals] = UNITS[unit] ?? [unit, 0];
  let n: bigint;
  try {
    n = BigInt(String(amount));
  } catch {
    return '—';
  }
  const base = 10n ** BigInt(decimals);
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  const frac = (abs % base).toString().padStart(decimals, '0').slice(0, places).replace(/0+$/, '');
  const shown = `${sign}${abs / base}${frac ? `.${frac}` : ''}`;
  return `${shown === '0' && abs > 0n ? `< 0.${'0'.repeat(places - 1)}1` : shown} ${name}`;
}

/**
 * An amount in its chain's coin, the exact integer in the smallest unit as its title and behind a copy button.
 * `unit` is the smallest unit (wei, lamport, stroop); `as` shows it in another (gwei for EVM fee fields).
 */
export function Amount({ raw, unit, as }: { raw: unknown; unit: string; as?: string }) {
  const [copied, setCopied] = useState(false);
  if (raw === null || raw === undefined || raw === '') return e('span', { class: 'muted' }, '—');
  const exact = `${String(raw)} ${unit}`;
  const copy = () =>
    void navigator.clipboard?.writeText(String(raw)).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return e(
    'span',
    { class: 'amount', title: exact, 'data-raw': String(raw) },
    coin(raw, as && unit === 'wei' ? as : unit),
    e(
      'button',
      { type: 'button', class: 'copy', 'aria-label': `Copy ${exact}`, title: `Copy ${exact}`, onClick: copy },
      copied ? 'copied' : 'copy',
    ),
  );
}

export const ErrorLine = ({ error }: { error: unknown }) =>
  error ? e('p', { class: 'error', role: 'alert' }, String((error as Error).message ?? error)) : null;

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * Bars for 60 one-minute values, oldest first, with a time axis (UTC) under them and the last value and the peak as
 * text. `start` is the first minute's start (Unix ms).
 */
export function Bars({
  title,
  values,
  start,
  unit = '',
}: {
  title: string;
  values: number[];
  start?: number;
  unit?: string;
}) {
  const W = 240;
  const H = 48;
  const peak = Math.max(1, ...values);
  const bw = W / Math.max(1, values.length);
  const from = start ?? Date.now() - values.length * 60_000;
  const ticks = [0, Math.floor(values.length / 2), values.length].map((i) => ({
    x: i * bw,
    label: hhmm(from + i * 60_000),
  }));
  return e(
    'figure',
    { class: 'chart' },
    title
      ? e(
          'figcaption',
          null,
          title,
          e('span', { class: 'muted' }, ` now ${values.at(-1) ?? 0}${unit} · peak ${Math.max(0, ...values)}${unit}`),
        )
      : null,
    e(
      'svg',
      {
        width: W,
        height: H + 14,
        viewBox: `0 0 ${W} ${H + 14}`,
        role: 'img',
        'aria-label': `${title || 'per minute'}, ${ticks[0]!.label} to ${ticks[2]!.label} UTC`,
      },
      e('rect', { class: 'chart-bg', x: 0, y: 0, width: W, height: H }),
      values.map((v, i) =>
        v > 0
          ? e('rect', {
              class: 'chart-bar',
              x: i * bw + 0.5,
              y: H - (v / peak) * (H - 2),
              width: Math.max(1, bw - 1),
              height: (v / peak) * (H - 2),
            })
          : null,
      ),
      ticks.map((t, i) =>
        e(
          'text',
          { class: 'chart-tick', x: t.x, y: H + 11, 'text-anchor': i === 0 ? 'start' : i === 2 ? 'end' : 'middle' },
          t.label,
        ),
      ),
    ),
  );
}

/** Focus stays in the dialog (Tab wraps) and Escape closes it; the first field or button takes the focus. */
function useDialogFocus(onClose: () => void) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const box = ref.current;
    const before = document.activeElement as HTMLElement | null;
    const focusable = () =>
      [...(box?.querySelectorAll<HTMLElement>('input, select, textarea, button') ?? [])].filter(
        (el) => !(el as HTMLButtonElement).disabled,
      );
    (box?.querySelector<HTMLElement>('[data-autofocus]') ?? focusable()[0])?.focus();
    // On the document: a button disabled while its call runs drops the focus to the body, outside the dialog.
    const onKey = (ev: KeyboardEvent) => {
      if (ev.key === 'Escape') return void (ev.preventDefault(), onClose());
      if (ev.key !== 'Tab') return;
      const list = focusable();
      if (list.length === 0) return;
      const [first, last] = [list[0]!, list.at(-1)!];
      const at = document.activeElement;
      if (!box?.contains(at)) ev.preventDefault(), first.focus();
      else if (ev.shiftKey && at === first) ev.preventDefault(), last.focus();
      else if (!ev.shiftKey && at === last) ev.preventDefault(), first.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => (document.removeEventListener('keydown', onKey), before?.focus?.());
  }, []);
  return ref;
}

/** A modal that says what will happen before it is done. */
export function Confirm(props: {
  title: string;
  children?: ComponentChildren;
  confirm: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  danger?: boolean;
  cancel?: string | null;
}) {
  const ref = useDialogFocus(props.onCancel);
  return e(
    'div',
    { class: 'modal-backdrop' },
    e(
      'div',
      { class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-label': props.title, ref },
      e('h3', null, props.title),
      e('div', { class: 'modal-body' }, props.children),
      e(
        'div',
        { class: 'modal-actions' },
        props.cancel === null
          ? null
          : e('button', { type: 'button', class: 'secondary', onClick: props.onCancel }, props.cancel ?? 'Keep it'),
        e(
          'button',
          {
            type: 'button',
            class: props.danger === false ? undefined : 'danger',
            'data-confirm': '',
            disabled: props.busy,
            onClick: props.onConfirm,
          },
          props.confirm,
        ),
      ),
    ),
  );
}

/**
 * A dialog holding a form: submitted with Enter or its button, closed with Escape or Cancel. `submit` rejects with the
 * API's error, shown in the dialog, which stays open; it resolves when done and the dialog closes (or shows `after`).
 */
export function FormDialog(props: {
  title: string;
  name: string;
  submit: () => Promise<void>;
  onClose: () => void;
  children?: ComponentChildren;
  label?: string;
}) {
  const ref = useDialogFocus(props.onClose);
  // Not a disabled button while the call runs: disabling the focused button would drop the keyboard's focus.
  const busy = useRef(false);
  const [error, setError] = useState<unknown>(null);
  const onSubmit = async (ev: Event) => {
    ev.preventDefault();
    if (busy.current) return;
    busy.current = true;
    setError(null);
    try {
      await props.submit();
    } catch (err) {
      setError(err);
    }
    busy.current = false;
  };
  return e(
    'div',
    { class: 'modal-backdrop' },
    e(
      'div',
      {
        class: 'modal',
        role: 'dialog',
        'aria-modal': 'true',
        'aria-label': props.title,
        'data-dialog': props.name,
        ref,
      },
      e('h3', null, props.title),
      e(
        'form',
        { class: 'dialog-form', onSubmit },
        props.children,
        e(ErrorLine, { error }),
        e(
          'div',
          { class: 'modal-actions' },
          e('button', { type: 'button', class: 'secondary', onClick: props.onClose }, 'Cancel'),
          e('button', { type: 'submit' }, props.label ?? 'Save'),
        ),
      ),
    ),
  );
}

/** A labelled field: input, select or textarea, its value kept by the caller. */
export function Field(props: {
  label: string;
  name: string;
  value: string;
  set: (v: string) => void;
  kind?: 'text' | 'password' | 'textarea' | 'select' | 'number';
  options?: Array<[string, string]>;
  hint?: string;
  required?: boolean;
  autofocus?: boolean;
}) {
  const onInput = (ev: Event) => props.set((ev.target as HTMLInputElement).value);
  const common = {
    name: props.name,
    value: props.value,
    required: props.required,
    'data-autofocus': props.autofocus ? '' : undefined,
    autocomplete: 'off',
  };
  const control =
    props.kind === 'textarea'
      ? e('textarea', { ...common, rows: 4, onInput })
      : props.kind === 'select'
        ? e(
            'select',
            { ...common, onChange: onInput },
            (props.options ?? []).map(([value, label]) => e('option', { value }, label)),
          )
        : e('input', { ...common, type: props.kind ?? 'text', onInput });
  return e(
    'label',
    { class: 'field' },
    props.label,
    control,
    props.hint ? e('span', { class: 'muted hint' }, props.hint) : null,
  );
}

export function Check(props: { label: string; name: string; checked: boolean; set: (v: boolean) => void }) {
  return e(
    'label',
    { class: 'check' },
    e('input', {
      type: 'checkbox',
      name: props.name,
      checked: props.checked,
      onChange: (ev: Event) => props.set((ev.target as HTMLInputElement).checked),
    }),
    props.label,
  );
}

/**
 * A button for an action: not there at all when the key may not take it (`allowed` false), disabled with the reason
 * as its title when the thing's state forbids it now (`unavailable`).
 */
export function Action(props: {
  allowed: boolean;
  unavailable?: string | false;
  onClick: () => void;
  children?: ComponentChildren;
  class?: string;
  name?: string;
  label?: string;
}) {
  if (!props.allowed) return null;
  return e(
    'button',
    {
      type: 'button',
      class: props.class,
      'data-action': props.name,
      'aria-label': props.label,
      disabled: Boolean(props.unavailable),
      title: props.unavailable || undefined,
      onClick: props.onClick,
    },
    props.children,
  );
}
