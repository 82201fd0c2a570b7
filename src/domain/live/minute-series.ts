// The last hour, minute by minute, in memory: counts and bounded latency samples per minute, in a ring of 60 slots.
// What the console's small charts draw; never stored, so a restart starts a new hour.

const MINUTES = 60;
/** Samples kept per name per minute: enough for a p99 of what one minute holds on a small deployment, bounded on a busy one. */
const SAMPLES_PER_MINUTE = 256;

interface Slot {
  minute: number;
  counts: Map<string, number>;
  samples: Map<string, { values: number[]; seen: number }>;
}

/** One minute as read: counts by name, and p50/p99 of each sampled name (null when nothing was sampled). */
export interface MinutePoint {
  /** Start of the minute, Unix ms. */
  at: number;
  counts: Record<string, number>;
  latency: Record<string, { p50: number; p99: number; n: number }>;
}

export interface MinuteSeries {
  count(name: string, now?: number): void;
  sample(name: string, value: number, now?: number): void;
  /** The last 60 minutes, oldest first, every minute present (empty ones with zero counts). */
  read(now?: number): MinutePoint[];
}

/** The value at quantile `q` of sorted `values` (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function createMinuteSeries(): MinuteSeries {
  const slots: Array<Slot | undefined> = new Array(MINUTES);
  const slotAt = (now: number): Slot => {
    const minute = Math.floor(now / 60_000);
    const index = minute % MINUTES;
    let slot = slots[index];
    if (!slot || slot.minute !== minute) {
      slot = { minute, counts: new Map(), samples: new Map() };
      slots[index] = slot;
    }
    return slot;
  };
  return {
    count(name, now = Date.now()) {
      const { counts } = slotAt(now);
      counts.set(name, (counts.get(name) ?? 0) + 1);
    },
    sample(name, value, now = Date.now()) {
      const { samples } = slotAt(now);
      let kept = samples.get(name);
      if (!kept) samples.set(name, (kept = { values: [], seen: 0 }));
      // Past the cap, each new sample overwrites one in turn: the minute stays represented, memory stays bounded.
      if (kept.values.length < SAMPLES_PER_MINUTE) kept.values.push(value);
      else kept.values[kept.seen % SAMPLES_PER_MINUTE] = value;
      kept.seen++;
    },
    read(now = Date.now()) {
      const last = Math.floor(now / 60_000);
      const out: MinutePoint[] = [];
      for (let minute = last - MINUTES + 1; minute <= last; minute++) {
        const slot = slots[minute % MINUTES];
        const point: MinutePoint = { at: minute * 60_000, counts: {}, latency: {} };
        if (slot && slot.minute === minute) {
          point.counts = Object.fromEntries(slot.counts);
          for (const [name, kept] of slot.samples) {
            const sorted = [...kept.values].sort((a, b) => a - b);
            point.latency[name] = { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), n: kept.seen };
          }
        }
        out.push(point);
      }
      return out;
    },
  };
}
