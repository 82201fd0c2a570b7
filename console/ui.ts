// Small shared pieces of the console's views: formatting, a bar chart in SVG, a confirmation dialog, error lines.
// Everything is rendered through preact as text nodes and attributes: no HTML string is ever parsed.
import { h, type ComponentChildren } from 'preact';

export const e = h;

export const shortId = (id: unknown) => (typeof id === 'string' && id.length > 14 ? `${id.slice(0, 8)}..${id.slice(-4)}` : String(id ?? ''));

export function ago(iso: unknown, now = Date.now()): string {
  const t = typeof iso === 'string' ? Date.parse(iso) : typeof iso === 'number' ? iso : NaN;
  if (!Number.isFinite(t)) return '—';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min ago`;
}

export const time = (iso: unknown) => (typeof iso === 'string' ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');

/** To the millisecond: a transaction's steps are often within one second. */
export const clock = (iso: unknown) => (typeof iso === 'string' ? iso.slice(11, 23) : '—');

const UNITS: Record<string, [string, number]> = { wei: ['ETH', 18], lamport: ['SOL', 9], stroop: ['XLM', 7] };

/** A balance in the smallest unit as its coin, exact (BigInt), cut to 6 decimals. */
export function coin(amount: unknown, unit: string): string {
  const [name, decimals] = UNITS[unit] ?? [unit, 0];
  let n: bigint;
  try {
    n = BigInt(String(amount));
  } catch {
    return '—';
  }
  const base = 10n ** BigInt(decimals);
  const frac = (n % base).toString().padStart(decimals, '0').slice(0, 6).replace(/0+$/, '');
  return `${n / base}${frac ? `.${frac}` : ''} ${name}`;
}

export const ErrorLine = ({ error }: { error: unknown }) => (error ? e('p', { class: 'error', role: 'alert' }, String((error as Error).message ?? error)) : null);

/** Bars for 60 values, with the last value and the peak as text. */
export function Bars({ title, values, unit = '' }: { title: string; values: number[]; unit?: string }) {
  const W = 240;
  const H = 48;
  const peak = Math.max(1, ...values);
  const bw = W / values.length;
  return e(
    'figure',
    { class: 'chart' },
    e('figcaption', null, title, e('span', { class: 'muted' }, ` now ${values.at(-1) ?? 0}${unit} · peak ${Math.max(0, ...values)}${unit}`)),
    e(
      'svg',
      { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title },
      e('rect', { class: 'chart-bg', x: 0, y: 0, width: W, height: H }),
      values.map((v, i) => (v > 0 ? e('rect', { class: 'chart-bar', x: i * bw + 0.5, y: H - (v / peak) * (H - 2), width: Math.max(1, bw - 1), height: (v / peak) * (H - 2) }) : null)),
    ),
  );
}

/** A modal that says what will happen before it is done. */
export function Confirm(props: { title: string; children?: ComponentChildren; confirm: string; onConfirm: () => void; onCancel: () => void; busy?: boolean }) {
  return e(
    'div',
    { class: 'modal-backdrop' },
    e(
      'div',
      { class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-label': props.title },
      e('h3', null, props.title),
      e('div', { class: 'modal-body' }, props.children),
      e('div', { class: 'modal-actions' }, e('button', { type: 'button', onClick: props.onCancel }, 'Keep it'), e('button', { type: 'button', class: 'danger', disabled: props.busy, onClick: props.onConfirm }, props.confirm)),
    ),
  );
}

/** A button that is disabled (with the reason as its title) when the key may not do it. */
export function Action(props: { allowed: boolean; why: string; onClick: () => void; children?: ComponentChildren; class?: string; name?: string }) {
  return e('button', { type: 'button', class: props.class, 'data-action': props.name, disabled: !props.allowed, title: props.allowed ? undefined : props.why, onClick: props.onClick }, props.children);
}
