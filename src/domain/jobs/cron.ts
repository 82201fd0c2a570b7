// Cron schedules (the reference's `cron_schedule` policy fields), in UTC: five fields (minute hour day-of-month month
// day-of-week) or six with seconds first, as the reference's cron library takes them. Each field: `*`, a number, a
// range `a-b`, a step `*/n` or `a-b/n`, or a comma list of those. The next due time is found minute by minute.
import { ValidationError } from '../../errors.ts';

interface Cron {
  seconds: number[];
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Both day fields restricted: either may match (the classic cron rule). */
  eitherDay: boolean;
}

const BOUNDS: Array<[number, number]> = [
  [0, 59],
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

function field(text: string, [min, max]: [number, number], what: string): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new ValidationError(`cron_schedule: '${part}' is not a valid ${what} field`);
    const from = m[1] === '*' ? min : Number(m[2]);
    const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < min || to > max || from > to || step < 1)
      throw new ValidationError(`cron_schedule: '${part}' is out of range for ${what} (${min}-${max})`);
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

export function parseCron(expr: string): Cron {
  const parts = expr.trim().split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6)
    throw new ValidationError(
      `cron_schedule '${expr}' must have 5 fields (minute hour day month weekday) or 6 (seconds first)`,
    );
  const withSeconds = parts.length === 6 ? parts : ['0', ...parts];
  const names = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week'];
  const [s, mi, h, d, mo, w] = withSeconds.map((p, i) => field(p, BOUNDS[i]!, names[i]!));
  const weekdays = new Set([...w!].map((v) => v % 7));
  return {
    seconds: [...s!].sort((a, b) => a - b),
    minutes: mi!,
    hours: h!,
    days: d!,
    months: mo!,
    weekdays,
    eitherDay: withSeconds[3] !== '*' && withSeconds[5] !== '*',
  };
}

/** The first time after `after` (ms) that the schedule names, in ms; searched up to about four years ahead. */
export function nextCronTime(expr: string, after: number): number {
  const c = parseCron(expr);
  const start = new Date(Math.floor(after / 60_000) * 60_000);
  for (let i = 0; i < 4 * 366 * 1440; i++) {
    const t = new Date(start.getTime() + i * 60_000);
    const dayOk = c.eitherDay
      ? c.days.has(t.getUTCDate()) || c.weekdays.has(t.getUTCDay())
      : c.days.has(t.getUTCDate()) && c.weekdays.has(t.getUTCDay());
    if (
      !c.months.has(t.getUTCMonth() + 1) ||
      !dayOk ||
      !c.hours.has(t.getUTCHours()) ||
      !c.minutes.has(t.getUTCMinutes())
    )
      continue;
    const second = c.seconds.find((sec) => t.getTime() + sec * 1000 > after);
    if (second !== undefined) return t.getTime() + second * 1000;
  }
  throw new ValidationError(`cron_schedule '${expr}' names no time in the next four years`);
}
