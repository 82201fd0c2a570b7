// PostgreSQL repository for durable jobs: upsert per (kind, subject), batch claims with FOR UPDATE SKIP LOCKED under a lease.
import { sql, type Kysely } from 'kysely';
import type { ClaimedJob, JobSpec, JobsRepo } from '../../domain/jobs/ports.ts';
import type { Database } from './schema.ts';
import { claimedInOrder, JOB_COLUMNS, toJob, upsertPayload, withLag, type JobRow as Row } from '../jobs-rows.ts';
import { JOBS_CHANNEL } from './channels.ts';

const COLUMNS = JOB_COLUMNS;
const RETURNED = sql.raw(COLUMNS.join(', '));

/**
 * The upsert of one job; a transaction holds it for its next statement (write-buffer.ts). The NOTIFY rides on it and
 * goes out when the writing transaction commits; `instance` is its payload: the instance that wrote the job wakes its
 * own scheduler directly.
 */
export function scheduleStatement(spec: JobSpec, instance: string) {
  const { payload, keep } = upsertPayload(spec);
  const now = Date.now();
  return sql`
    INSERT INTO jobs AS j (kind, subject, due_at, payload, created_at, updated_at) VALUES (${spec.kind}, ${spec.subject}, ${spec.dueAt}, ${payload}, ${now}, ${now})
    ON CONFLICT (kind, subject) DO UPDATE SET
      due_at = CASE WHEN ${spec.replace === true} THEN excluded.due_at ELSE LEAST(j.due_at, excluded.due_at) END,
      payload = CASE WHEN ${keep} THEN j.payload ELSE excluded.payload END,
      generation = j.generation + 1,
      updated_at = excluded.updated_at
    RETURNING pg_notify(${JOBS_CHANNEL}, ${instance})`;
}

export function createJobsRepo(q: Kysely<Database>, instance: string): JobsRepo {
  // Every lease-checked statement names the lease the caller holds.
  const held = (job: ClaimedJob) =>
    q
      .updateTable('jobs')
      .where('id', '=', job.id)
      .where('lease_owner', '=', job.leaseOwner)
      .where('claims', '=', job.claims);
  const settle = async (job: ClaimedJob, dueAt: number, attempts: number, error: string | null) => {
    const r = await held(job)
      .set({
        // A newer schedule() (generation moved on) stands as it is: its due time, payload and a fresh attempt count.
        due_at: sql`CASE WHEN generation = ${job.generation} THEN ${dueAt}::bigint ELSE due_at END`,
        attempts: sql`CASE WHEN generation = ${job.generation} THEN ${attempts}::int ELSE 0 END`,
        last_error: error,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: Date.now(),
      })
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  };

  return {
    async schedule(spec) {
      await scheduleStatement(spec, instance).execute(q);
    },
    async cancel(kind, subject) {
      const r = await q.deleteFrom('jobs').where('kind', '=', kind).where('subject', '=', subject).executeTakeFirst();
      return r.numDeletedRows > 0n;
    },
    async get(kind, subject) {
      const row = await q
        .selectFrom('jobs')
        .select(COLUMNS)
        .where('kind', '=', kind)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row && toJob(row as Row);
    },
    async claim({ owner, now, limit, leaseMs, kinds }) {
      if (limit <= 0 || kinds.length === 0) return [];
      const { rows } = await sql<Row>`
        UPDATE jobs SET lease_owner = ${owner}, lease_expires_at = ${now + leaseMs}, claims = claims + 1, updated_at = ${now}
        WHERE id IN (
          SELECT id FROM jobs
          WHERE due_at <= ${now} AND (lease_owner IS NULL OR lease_expires_at <= ${now}) AND kind = ANY(${[...kinds]}::text[])
          ORDER BY due_at, id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING ${RETURNED}`.execute(q);
      return claimedInOrder(rows);
    },
    async finish(job, rescheduleAt) {
      if (rescheduleAt === undefined) {
        const r = await q
          .deleteFrom('jobs')
          .where('id', '=', job.id)
          .where('lease_owner', '=', job.leaseOwner)
          .where('claims', '=', job.claims)
          .where('generation', '=', job.generation)
          .executeTakeFirst();
        if (r.numDeletedRows > 0n) return true;
      }
      return settle(job, rescheduleAt ?? job.dueAt, 0, null);
    },
    retry: (job, dueAt, error) => settle(job, dueAt, job.attempts + 1, error),
    async renew(job, until) {
      const r = await held(job).set({ lease_expires_at: until, updated_at: Date.now() }).executeTakeFirst();
      return r.numUpdatedRows > 0n;
    },
    async release(job) {
      const r = await held(job)
        .set({ lease_owner: null, lease_expires_at: null, updated_at: Date.now() })
        .executeTakeFirst();
      return r.numUpdatedRows > 0n;
    },
    async nextDueAt(kinds) {
      if (kinds.length === 0) return null;
      const row = await q
        .selectFrom('jobs')
        .select('due_at')
        .where('lease_owner', 'is', null)
        .where('kind', '=', sql<string>`ANY(${[...kinds]}::text[])`)
        .orderBy('due_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row?.due_at ?? null;
    },
    async stats(now) {
      const { rows } = await sql<{
        kind: string;
        scheduled: number;
        due: number;
        running: number;
        oldest: number | null;
      }>`
        SELECT kind, COUNT(*)::int AS scheduled,
          COUNT(*) FILTER (WHERE due_at <= ${now} AND (lease_owner IS NULL OR lease_expires_at <= ${now}))::int AS due,
          COUNT(*) FILTER (WHERE lease_owner IS NOT NULL AND lease_expires_at > ${now})::int AS running,
          MIN(due_at) FILTER (WHERE due_at <= ${now} AND (lease_owner IS NULL OR lease_expires_at <= ${now})) AS oldest
        FROM jobs GROUP BY kind ORDER BY kind`.execute(q);
      return withLag(rows, now);
    },
    async leaseOwners(now) {
      const rows = await q
        .selectFrom('jobs')
        .select('lease_owner')
        .distinct()
        .where('lease_owner', 'is not', null)
        .where('lease_expires_at', '>', now)
        .execute();
      return rows.map((r) => r.lease_owner!);
    },
    async releaseAllOf(owner) {
      const r = await q
        .updateTable('jobs')
        .set({ lease_owner: null, lease_expires_at: null, updated_at: Date.now() })
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
  };
}
