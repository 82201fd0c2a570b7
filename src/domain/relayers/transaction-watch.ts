// What follows every committed transaction change besides its event: the stage clock (latency metrics) and a balance
// check soon after (the relayer's balance moves with its transactions). Wraps the metrics observer the app passes.
import type { TransitionObserver } from '../transactions/family.ts';
import { createStageClock, type StageObserver } from '../transactions/stage-clock.ts';
import type { TransactionRecord } from '../types.ts';
import type { RelayersRepo } from './ports.ts';

export function watchTransactions(deps: {
  observer?: TransitionObserver | undefined;
  stages?: StageObserver | undefined;
  balanceWatch: { poke(relayerId: string): void };
  relayers: Pick<RelayersRepo, 'get'>;
}): { observer: TransitionObserver; broadcast(record: TransactionRecord): void } {
  const { observer, balanceWatch } = deps;
  const clock = deps.stages ? createStageClock(deps.stages) : undefined;
  // A relayer's network never changes (PATCH cannot move it): read once. One promise per relayer keeps the
  // changes of one store transaction (mined, then confirmed) in their order.
  const networks = new Map<string, Promise<string | undefined>>();
  const networkOf = (relayerId: string) => {
    let found = networks.get(relayerId);
    if (!found) {
      found = deps.relayers.get(relayerId).then(
        (r) => r?.network,
        () => undefined,
      );
      networks.set(relayerId, found);
    }
    return found;
  };
  const timed = (record: TransactionRecord, fn: (network: string) => void) =>
    void networkOf(record.relayer_id).then((network) => {
      if (network === undefined) networks.delete(record.relayer_id);
      else fn(network);
    });
  return {
    observer: {
      ...observer,
      transition: (networkType, from, to) => observer?.transition(networkType, from, to),
      changed(record, from) {
        observer?.changed?.(record, from);
        balanceWatch.poke(record.relayer_id);
        if (clock) timed(record, (network) => clock.changed(network, record, from));
      },
    },
    broadcast(record) {
      if (clock) clock.broadcast(record);
    },
  };
}
