// Nonces below a waiting transaction that nothing of ours will use (a canceled send that never left, a nonce the
// store moved past while the chain did not) block everything above them: each is filled with a NOOP.
import type { Hex } from '../../chains/ports.ts';
import type { Log } from '../../log.ts';
import type { StoredTransaction } from '../../relayers/ports.ts';
import type { Tick } from './tick.ts';
import { speedPricing } from './pricing.ts';
import { asEvm, noopPrepared, signUnderCap } from './versions.ts';
import { lacksMempool, noopGasLimit } from './network-kind.ts';

const FILLS_PER_RUN = 32;

/** NOOPs for the unused nonces in [chain pending, top); returns how many it sent. */
export async function fillNonceGaps(
  t: Tick,
  active: readonly StoredTransaction[],
  top: number,
  logger: Log,
): Promise<number> {
  const ours = new Set(active.map((s) => asEvm(s.record).nonce));
  const gaps: number[] = [];
  for (let n = t.pending; n < top && gaps.length < FILLS_PER_RUN; n++) if (!ours.has(n)) gaps.push(n);
  if (gaps.length === 0) return 0;
  const fees = await t.fees();
  if (!fees) return gaps.length;
  const noop = noopPrepared(
    t.relayer.address,
    speedPricing('fast', fees),
    await noopGasLimit(t.chain, t.network, t.relayer.address),
  );
  const fill = async (nonce: number) => {
    // Priced at the network's `fast`, signed under the relayer's fee cap (signUnderCap lowers it to the cap).
    const { raw } = (await signUnderCap(t.signer, nonce, noop)).signed;
    const outcome = await t.chain.broadcast(raw as Hex);
    logger.warn({ relayerId: t.relayer.id, nonce, outcome: outcome.status }, 'nonce gap filled with a NOOP');
  };
  // A sequencer refuses a nonce above the next one: without a pool, lowest first, one at a time.
  if (lacksMempool(t.network)) for (const nonce of gaps) await fill(nonce);
  else await Promise.all(gaps.map(fill));
  return gaps.length;
}
