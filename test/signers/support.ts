// What every remote signer's end-to-end test proves the same way: a send through the API, signed by that signer, is
// mined from the signer's own address and moves the value.
import assert from 'node:assert/strict';
import type { TestServer } from '../helper.ts';
import type { TestAnvil } from '../support/anvil.ts';
import { waitFor } from '../transactions/lifecycle/support.ts';

/** Sends 1000 wei from `relayerId` to `to` and waits until it is mined from `address` (which must hold funds). */
export async function sendIsMinedFrom(
  s: TestServer,
  anvil: TestAnvil,
  relayerId: string,
  address: string,
  to: string,
): Promise<void> {
  const sent = await s.request('POST', `/api/v1/relayers/${relayerId}/transactions`, {
    body: { to, value: '1000', speed: 'fast' },
  });
  assert.equal(sent.status, 200, sent.text);
  const txUrl = `/api/v1/relayers/${relayerId}/transactions/${sent.body.data.id}`;
  const mined = await waitFor(
    async () => (await s.request('GET', txUrl)).body.data,
    (tx) => ['mined', 'confirmed'].includes(tx.status),
    60_000,
    'mined',
  );
  assert.equal(mined.from.toLowerCase(), address.toLowerCase());
  assert.equal(BigInt(await anvil.rpc<string>('eth_getBalance', [to, 'latest'])), 1000n);
}
