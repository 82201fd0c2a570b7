// "No transaction without a scheduled next step, at any moment": while a scenario runs, the store is read every
// SAMPLE_MS (read-only, one snapshot per read) and every non-final transaction must have its relayer's `evm.check`
// job row (the durable schedule that moves it on; a dead process's lease is freed at restart, the row stays).
import type Database from 'better-sqlite3';
import { FINAL_STATUSES } from '../../src/domain/types.ts';

const SAMPLE_MS = 250;

export interface ScheduleReport {
  samples: number;
  /** Samples that found at least one non-final transaction without a scheduled check. */
  violations: number;
  /** The transactions so found, first ones (id: status), for the failure message. */
  unscheduled: string[];
  maxNonFinal: number;
}

const NON_FINAL = ['pending', 'sent', 'submitted', 'mined'];

export function sampleSchedule(db: () => Database.Database): { stop(): ScheduleReport } {
  const report: ScheduleReport = { samples: 0, violations: 0, unscheduled: [], maxNonFinal: 0 };
  // Every status the lifecycle knows is either final or in NON_FINAL: a new status would otherwise slip past.
  const statuses = `(${NON_FINAL.map((s) => `'${s}'`).join(', ')})`;
  const sample = () => {
    try {
      const read = db().transaction(() => {
        const nonFinal = db()
          .prepare(`SELECT COUNT(*) FROM transactions WHERE status IN ${statuses}`)
          .pluck()
          .get() as number;
        const missing = db()
          .prepare(
            `SELECT t.id || ': ' || t.status FROM transactions t WHERE t.status IN ${statuses}
             AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.kind = 'evm.check' AND j.subject = t.relayer_id) LIMIT 5`,
          )
          .pluck()
          .all() as string[];
        const unknown = db().prepare('SELECT DISTINCT status FROM transactions').pluck().all() as string[];
        return {
          nonFinal,
          missing,
          unknown: unknown.filter((s) => !NON_FINAL.includes(s) && !FINAL_STATUSES.has(s as never)),
        };
      });
      const { nonFinal, missing, unknown } = read();
      report.samples++;
      report.maxNonFinal = Math.max(report.maxNonFinal, nonFinal);
      if (missing.length > 0 || unknown.length > 0) {
        report.violations++;
        if (report.unscheduled.length < 10)
          report.unscheduled.push(...missing, ...unknown.map((s) => `unknown status ${s}`));
      }
    } catch {
      // The store file is being created or recovered (a restart): no reading this time.
    }
  };
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return report;
    },
  };
}
