// A node behind its peers (simulated Solana network, test/support/solana-rpc.ts over litesvm, behind a front that
// plays the lagging node): the relayer chose a blockhash this node does not know yet, so the signing gate's
// simulation answers BlockhashNotFound. Where the relayer chose the blockhash (a build from instructions), it builds
// again with a fresh one instead of refusing the send; a client's own blockhash is the client's, and stays refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { resolveSigner } from '../../src/signers/local/resolve.ts';
import { startSolanaSim } from '../support/solana-rpc.ts';
import { build } from '../helper.ts';
import { solanaSetup, transfer } from './solana-support.ts';
import { waitFinal } from './wait-final.ts';

/** Forwards every request; the next `lagging` simulations are answered as a node that lacks the blockhash answers them. */
async function laggingFront(upstream: string) {
  const state = { lagging: 0, simulations: 0 };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const answer = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(body),
    });
    let text = await answer.text();
    const item = JSON.parse(body.toString()) as { method?: string };
    if (item.method === 'simulateTransaction') {
      state.simulations++;
      if (state.lagging > 0) {
        state.lagging--;
        const parsed = JSON.parse(text);
        parsed.result.value = { ...parsed.result.value, err: 'BlockhashNotFound', logs: [] };
        text = JSON.stringify(parsed);
      }
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

test('simulated Solana network: a simulation that does not know the blockhash the relayer chose builds the send again with a fresh one; it lands once', async (t) => {
  const sim = await startSolanaSim({ slotMs: 20, finalizeDepth: 4 });
  t.after(() => sim.close());
  const front = await laggingFront(sim.url);
  t.after(() => front.close());
  const setup = solanaSetup(sim, 'sol');
  setup.config.networks![0]!.rpc_urls = [{ url: front.url, weight: 100 }];
  const s = await build(t, { config: setup.config });
  const dest = resolveSigner({ id: 'd', type: 'local', private_key: randomBytes(32).toString('hex') }, 'solana', {});

  front.state.lagging = 1;
  const before = front.state.simulations;
  const sent = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [transfer(setup.address, dest.address, 1_000_000n)] },
  });
  assert.equal(sent.status, 200, sent.text);
  assert.equal(front.state.simulations - before, 2, 'simulated twice: the stale build, then the fresh one');
  const done = await waitFinal(s, 'sol', sent.body.data.id, 30_000);
  assert.equal(done.status, 'confirmed', done.status_reason);
  assert.equal(sim.balance(dest.address), 1_000_000n, 'landed once');

  // A node that never catches up: the build is tried a bounded number of times, then refused with the node's reason.
  front.state.lagging = 100;
  const refused = await s.request('POST', '/api/v1/relayers/sol/transactions', {
    body: { instructions: [transfer(setup.address, dest.address, 2_000_000n)] },
  });
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.body.error, /Transaction simulation failed: .*[Bb]lockhash/);
  assert.equal(100 - front.state.lagging, 3, 'one build and two fresh ones');
});
