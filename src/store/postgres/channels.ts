// The LISTEN/NOTIFY channels: a commit that writes outbox events or schedules jobs wakes every instance's
// dispatcher or scheduler. The payload is the writing instance's id (it wakes its own directly, after the commit).
export const OUTBOX_CHANNEL = 'relaybox_outbox';
export const JOBS_CHANNEL = 'relaybox_jobs';
