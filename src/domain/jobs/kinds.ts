// Every kind of background job, registered with the one scheduler here and nowhere else (test/architecture holds
// that): token swaps (stellar.token-swap, solana.token-swap), each network family's transaction jobs (evm.check,
// solana.tx, stellar.lane) and the balance check (relayer.balance), in the order they resume at start.
import type { JobHandler } from './run-job.ts';
import type { JobKind, Relaying } from '../relaying.ts';
import type { RelayFamily } from '../transactions/family.ts';
import { BALANCE_CHECK } from '../relayers/balance-watch.ts';

/** A family's job kinds; its resume (which also resyncs its relayers, EVM nonces) runs once, with its first kind. */
function familyKinds(family: RelayFamily): JobKind[] {
  return Object.entries(family.jobs).map(([kind, handler], i) => ({
    kind,
    handler,
    resume: i === 0 ? () => family.resume() : async () => {},
  }));
}

export function jobKinds({ families, swaps, balanceWatch }: Relaying): JobKind[] {
  return [
    ...(swaps.stellar ? [swaps.stellar] : []),
    swaps.solana,
    ...familyKinds(families.evm),
    ...familyKinds(families.solana),
    ...familyKinds(families.stellar),
    { kind: BALANCE_CHECK, handler: balanceWatch.handler, resume: () => balanceWatch.resume() },
  ];
}

/** Registers every kind with the scheduler, then resumes each (before the scheduler starts running jobs). */
export async function registerJobKinds(
  scheduler: { register(kind: string, handler: JobHandler): void },
  relaying: Relaying,
): Promise<void> {
  const kinds = jobKinds(relaying);
  for (const { kind, handler } of kinds) scheduler.register(kind, handler);
  for (const k of kinds) await k.resume();
}
