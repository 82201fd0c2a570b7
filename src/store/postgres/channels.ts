// The LISTEN/NOTIFY channels: a commit that writes outbox events or schedules jobs wakes every instance's
// dispatcher or scheduler, and one that writes transactions reaches every instance's events stream. The payload
// starts with the writing instance's id (it wakes its own directly, after the commit).
export const OUTBOX_CHANNEL = 'relaybox_outbox';
export const JOBS_CHANNEL = 'relaybox_jobs';
/** "<writer> <transaction id> <version>", one per transaction row written (migration 012's trigger). */
export const LIVE_CHANNEL = 'relaybox_live';
