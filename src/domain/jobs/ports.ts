// Durable background jobs as the domain sees them: one row per (kind, subject) with a due time and a lease.
// The scheduler (scheduler.ts) claims due jobs in batches; any instance sharing the store may hold a lease.

/** A JSON value (what a job's payload may hold). */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface Job {
  id: number;
  /** What to do, e.g. `evm.check`; one handler per kind. */
  kind: string;
  /** What to do it to, e.g. a transaction id. One job per (kind, subject). */
  subject: string;
  /** Unix ms: not claimed before. */
  dueAt: number;
  /** Failed runs since the job was last finished or rescheduled (drives the retry backoff). */
  attempts: number;
  payload: Json | null;
  /** Bumped by every schedule(): a finish by a holder that read an older generation keeps the row. */
  generation: number;
  /** Bumped by every claim: with `leaseOwner`, identifies one lease. */
  claims: number;
  leaseOwner: string | null;
  /** Unix ms; once past, any instance may claim the job again. */
  leaseExpiresAt: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A job as `claim` hands it out: leased to the caller. */
export interface ClaimedJob extends Job {
  leaseOwner: string;
  leaseExpiresAt: number;
}

export interface JobSpec {
  kind: string;
  subject: string;
  dueAt: number;
  /** Stored as JSON text. Omitted: an existing job keeps its payload (null for a new one). */
  payload?: Json;
  /** Set due time and payload as given. Default: the earliest due time wins. */
  replace?: boolean;
}

export interface ClaimRequest {
  /** Who takes the lease: an instance id, unique per process run. */
  owner: string;
  now: number;
  limit: number;
  leaseMs: number;
  /** Only these kinds (the ones this instance has handlers for). */
  kinds: readonly string[];
}

/** Per kind, for metrics and operators. */
export interface JobStats {
  kind: string;
  /** Rows of this kind (due or not, running or not). */
  scheduled: number;
  /** Due and free to claim now (not leased, or lease expired). */
  due: number;
  /** Leased and the lease not expired. */
  running: number;
  /** How late the oldest due, unclaimed job is (ms); 0 when none is due. */
  lagMs: number;
}

/**
 * The jobs table. `schedule` and `cancel` belong in the transaction that makes the job necessary
 * (like the outbox), through `atomically`'s tx; the lease methods are called on their own.
 *
 * Lease rules: `finish`, `retry`, `renew` and `release` act only while the caller still holds the
 * lease it was given (same owner and claim), and return false otherwise (expired and re-claimed,
 * or canceled). A `schedule` that lands while the job is leased bumps its generation: the holder's
 * `finish` then keeps the row (lease released, the scheduled due time and payload stand), so the
 * new work is never lost.
 *
 * PostgreSQL: `claim` is one `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING`;
 * SQLite: one UPDATE under the database's write lock.
 */
export interface JobsRepo {
  /** Upsert on (kind, subject); see JobSpec.replace. */
  schedule(spec: JobSpec): Promise<void>;
  /** Removes the job whether leased or not (a holder's later finish/retry then returns false). */
  cancel(kind: string, subject: string): Promise<boolean>;
  get(kind: string, subject: string): Promise<Job | undefined>;
  /** Leases up to `limit` due jobs of `kinds`, oldest due first, that are not leased or whose lease expired. */
  claim(request: ClaimRequest): Promise<ClaimedJob[]>;
  /**
   * Done: the job is deleted, or, with `rescheduleAt`, kept due at that time (attempts reset).
   * If it was scheduled again while leased, the newer schedule stands instead.
   */
  finish(job: ClaimedJob, rescheduleAt?: number): Promise<boolean>;
  /** Failed: lease released, attempts + 1, `error` kept, due at `dueAt` (unless scheduled again meanwhile). */
  retry(job: ClaimedJob, dueAt: number, error: string): Promise<boolean>;
  /** Extends the lease to `leaseExpiresAt` (slow handlers). */
  renew(job: ClaimedJob, leaseExpiresAt: number): Promise<boolean>;
  /** Gives the job back unchanged (lease cleared, no attempt counted): a closing instance's unfinished work. */
  release(job: ClaimedJob): Promise<boolean>;
  /** Earliest due time among unleased jobs of `kinds`, or null: how long the scheduler may sleep. */
  nextDueAt(kinds: readonly string[]): Promise<number | null>;
  stats(now: number): Promise<JobStats[]>;
  /** Owners holding a lease that has not expired at `now`. */
  leaseOwners(now: number): Promise<string[]>;
  /** Gives back every job `owner` holds (known dead), unchanged as release() does. The count of jobs freed. */
  releaseAllOf(owner: string): Promise<number>;
}
