// SQLite repository for durable background jobs: upsert per (kind, subject), batch claims with a lease, lease-checked finish.
import type { Db } from './db.ts';
import type { ClaimedJob, JobsRepo, JobStats } from '../../domain/jobs/ports.ts';
import { claimedInOrder, JOB_COLUMNS, toJob, upsertPayload, withLag, type JobRow as Row } from '../jobs-rows.ts';
import type { SyncOf } from './sync-ops.ts';

const COLUMNS = JOB_COLUMNS.join(', ');

/** The lease a claimed job names: these three are in every lease-checked statement. */
const lease = (job: ClaimedJob) => ({ id: job.id, owner: job.leaseOwner, claims: job.claims });

/**
 * Every statement is prepared here, once. A claim is one UPDATE, so it runs under SQLite's write lock
 * and two processes on one file never lease the same job. Kinds travel as one JSON array parameter.
 */
export function createJobsRepo(db: Db): SyncOf<JobsRepo> {
  // No payload given (NULL with keep = 1): an existing row keeps its payload.
  const upsert = db.prepare(`
    INSERT INTO jobs (kind, subject, due_at, payload, created_at, updated_at) VALUES (@kind, @subject, @dueAt, @payload, @now, @now)
    ON CONFLICT (kind, subject) DO UPDATE SET
      due_at = CASE WHEN @replace THEN excluded.due_at ELSE MIN(jobs.due_at, excluded.due_at) END,
      payload = CASE WHEN @keep THEN jobs.payload ELSE excluded.payload END,
      generation = jobs.generation + 1,
      updated_at = excluded.updated_at`);
  const cancel = db.prepare('DELETE FROM jobs WHERE kind = ? AND subject = ?');
  const getOne = db.prepare<[string, string], Row>(`SELECT ${COLUMNS} FROM jobs WHERE kind = ? AND subject = ?`);
  const claim = db.prepare<Record<string, unknown>, Row>(`
    UPDATE jobs SET lease_owner = @owner, lease_expires_at = @until, claims = claims + 1, updated_at = @now
    WHERE id IN (
      SELECT id FROM jobs
      WHERE due_at <= @now AND (lease_owner IS NULL OR lease_expires_at <= @now) AND kind IN (SELECT value FROM json_each(@kinds))
      ORDER BY due_at, id LIMIT @limit)
    RETURNING ${COLUMNS}`);
  const remove = db.prepare(
    'DELETE FROM jobs WHERE id = @id AND lease_owner = @owner AND claims = @claims AND generation = @generation',
  );
  // A newer schedule() (generation moved on) stands as it is: its due time, payload and a fresh attempt count.
  const settle = db.prepare(`
    UPDATE jobs SET
      due_at = CASE WHEN generation = @generation THEN @dueAt ELSE due_at END,
      attempts = CASE WHEN generation = @generation THEN @attempts ELSE 0 END,
      last_error = @error, lease_owner = NULL, lease_expires_at = NULL, updated_at = @now
    WHERE id = @id AND lease_owner = @owner AND claims = @claims`);
  const renew = db.prepare(
    'UPDATE jobs SET lease_expires_at = @until, updated_at = @now WHERE id = @id AND lease_owner = @owner AND claims = @claims',
  );
  const release = db.prepare(
    'UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, updated_at = @now WHERE id = @id AND lease_owner = @owner AND claims = @claims',
  );
  const nextDue = db
    .prepare<[string], number>(`
    SELECT due_at FROM jobs WHERE lease_owner IS NULL AND kind IN (SELECT value FROM json_each(?)) ORDER BY due_at, id LIMIT 1`)
    .pluck();
  const stats = db.prepare<{ now: number }, Omit<JobStats, 'lagMs'> & { oldest: number | null }>(`
    SELECT kind, COUNT(*) AS scheduled,
      SUM(due_at <= @now AND (lease_owner IS NULL OR lease_expires_at <= @now)) AS due,
      SUM(lease_owner IS NOT NULL AND lease_expires_at > @now) AS running,
      MIN(CASE WHEN due_at <= @now AND (lease_owner IS NULL OR lease_expires_at <= @now) THEN due_at END) AS oldest
    FROM jobs GROUP BY kind ORDER BY kind`);

  const owners = db
    .prepare<[number], string>(
      'SELECT DISTINCT lease_owner FROM jobs WHERE lease_owner IS NOT NULL AND lease_expires_at > ?',
    )
    .pluck();
  const releaseAll = db.prepare(
    'UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, updated_at = @now WHERE lease_owner = @owner',
  );

  return {
    schedule(spec) {
      const { payload, keep } = upsertPayload(spec);
      upsert.run({
        kind: spec.kind,
        subject: spec.subject,
        dueAt: spec.dueAt,
        payload,
        replace: spec.replace ? 1 : 0,
        keep: keep ? 1 : 0,
        now: Date.now(),
      });
    },
    cancel: (kind, subject) => cancel.run(kind, subject).changes > 0,
    get(kind, subject) {
      const row = getOne.get(kind, subject);
      return row && toJob(row);
    },
    claim({ owner, now, limit, leaseMs, kinds }) {
      if (limit <= 0 || kinds.length === 0) return [];
      return claimedInOrder(claim.all({ owner, until: now + leaseMs, now, limit, kinds: JSON.stringify(kinds) }));
    },
    finish(job, rescheduleAt) {
      if (rescheduleAt === undefined && remove.run({ ...lease(job), generation: job.generation }).changes > 0)
        return true;
      const dueAt = rescheduleAt ?? job.dueAt;
      return (
        settle.run({ ...lease(job), generation: job.generation, dueAt, attempts: 0, error: null, now: Date.now() })
          .changes > 0
      );
    },
    retry: (job, dueAt, error) =>
      settle.run({
        ...lease(job),
        generation: job.generation,
        dueAt,
        attempts: job.attempts + 1,
        error,
        now: Date.now(),
      }).changes > 0,
    renew: (job, until) => renew.run({ ...lease(job), until, now: Date.now() }).changes > 0,
    release: (job) => release.run({ ...lease(job), now: Date.now() }).changes > 0,
    nextDueAt: (kinds) => (kinds.length === 0 ? null : (nextDue.get(JSON.stringify(kinds)) ?? null)),
    leaseOwners: (now) => owners.all(now),
    releaseAllOf: (owner) => releaseAll.run({ owner, now: Date.now() }).changes,
    stats(now) {
      return withLag(stats.all({ now }), now);
    },
  };
}
