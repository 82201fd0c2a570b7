// Counts bumped on every request, kept in nested Maps and handed to prom-client only when it is scraped (a counter's
// or gauge's `collect`). prom-client builds a label hash and checks the labels at every update; a plugin call made
// ten such updates, a measured share of the HTTP thread's CPU per call (docs/performance.md).

/** One series: its labels, made once, and its total. */
export interface Tally<L> {
  readonly labels: L;
  n: number;
}

/**
 * Totals under up to three keys (route, method, status). Each key is looked up as it is, so the hot path builds no
 * string: a route from the route matcher, a method from the HTTP parser and a status code repeat themselves.
 */
export class Tallies<A, B, C, L> {
  readonly #root = new Map<A, Map<B, Map<C, Tally<L>>>>();
  readonly #labelsOf: (a: A, b: B, c: C) => L;

  constructor(labelsOf: (a: A, b: B, c: C) => L) {
    this.#labelsOf = labelsOf;
  }

  add(a: A, b: B, c: C, by = 1): void {
    let byB = this.#root.get(a);
    if (!byB) this.#root.set(a, (byB = new Map()));
    let byC = byB.get(b);
    if (!byC) byB.set(b, (byC = new Map()));
    const tally = byC.get(c);
    if (tally) tally.n += by;
    else byC.set(c, { labels: this.#labelsOf(a, b, c), n: by });
  }

  *[Symbol.iterator](): IterableIterator<Tally<L>> {
    for (const byB of this.#root.values()) for (const byC of byB.values()) yield* byC.values();
  }
}

/** What `collect` needs of a prom-client counter or gauge. */
interface Settable<M> {
  reset(): void;
  inc(labels: M, value: number): void;
}

/**
 * A `collect` that sets each series of a counter or gauge to its tally's total at the scrape; `labels` maps a
 * tally's labels to the metric's, or leaves a tally out (undefined).
 */
export function collectTallies<L, M = L>(
  tallies: Iterable<Tally<L>>,
  labels: (l: L) => M | undefined = (l) => l as unknown as M,
): (this: Settable<M>) => void {
  return function () {
    this.reset();
    for (const t of tallies) {
      const l = labels(t.labels);
      if (l !== undefined) this.inc(l, t.n);
    }
  };
}
