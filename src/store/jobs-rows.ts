// What the two job repositories (sqlite/jobs-repo.ts, postgres/jobs-repo.ts) share: the jobs table's row and its
// mapping to a Job, what an upsert keeps, the order of a claim's answer and the lag of the stats. Each keeps its SQL.
import type { ClaimedJob, Job, JobSpec, JobStats, Json } from '../domain/jobs/ports.ts';

/** A row of the jobs table, as both engines return it (BIGINT ms as numbers on PostgreSQL, postgres/db.ts). */
export interface JobRow {
  id: number;
  kind: string;
  subject: string;
  due_at: number;
  attempts: number;
  payload: string | null;
  generation: number;
  claims: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export const JOB_COLUMNS = [
  'id',
  'kind',
  'subject',
  'due_at',
  'attempts',
  'payload',
  'generation',
  'claims',
  'lease_owner',
  'lease_expires_at',
  'last_error',
  'created_at',
  'updated_at',
] as const;

export const toJob = (r: JobRow): Job => ({
  id: r.id,
  kind: r.kind,
  subject: r.subject,
  dueAt: r.due_at,
  attempts: r.attempts,
  payload: r.payload === null ? null : (JSON.parse(r.payload) as Json),
  generation: r.generation,
  claims: r.claims,
  leaseOwner: r.lease_owner,
  leaseExpiresAt: r.lease_expires_at,
  lastError: r.last_error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** An upsert's payload, and whether an existing row keeps its own (no payload given, not a replace). */
export function upsertPayload(spec: JobSpec): { payload: string | null; keep: boolean } {
  return {
    payload: spec.payload === undefined ? null : JSON.stringify(spec.payload),
    keep: spec.payload === undefined && !spec.replace,
  };
}

/** The rows a claim leased, as jobs in due order (RETURNING gives no order guarantee). */
export const claimedInOrder = (rows: readonly JobRow[]): ClaimedJob[] =>
  rows.map(toJob).sort((a, b) => a.dueAt - b.dueAt || a.id - b.id) as ClaimedJob[];

/** Per-kind counts with the lag of the oldest due job (0 when none is due). */
export const withLag = (
  rows: ReadonlyArray<Omit<JobStats, 'lagMs'> & { oldest: number | null }>,
  now: number,
): JobStats[] => rows.map(({ oldest, ...s }) => ({ ...s, lagMs: oldest === null ? 0 : Math.max(0, now - oldest) }));
