// The events stream behind a load balancer: two real `node src/main.ts` processes on one PostgreSQL database (and a
// real anvil). A stream opened on one instance sees the changes the other commits; neither shows a change twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { clusterSkip, createCluster, SEND, waitFor, type Instance } from './cluster.ts';
import { startAnvil } from '../support/anvil.ts';

const skip = await clusterSkip();

interface Seen {
  id: string;
  status: string;
  json: string;
}

/** Reads `instance`'s events stream in the background until closed. */
async function openStream(instance: Instance, apiKey: string) {
  const controller = new AbortController();
  const res = await fetch(`${instance.url}/api/v1/events?relayer_id=hot`, {
    headers: { authorization: `Bearer ${apiKey}` },
    signal: controller.signal,
  });
  assert.equal(res.status, 200);
  const seen: Seen[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!/^event: transaction_update$/m.test(block) || !data) continue;
        const { transaction } = JSON.parse(data) as { transaction: { id: string; status: string } };
        seen.push({ id: transaction.id, status: transaction.status, json: JSON.stringify(transaction) });
      }
    }
  })().catch(() => undefined);
  return {
    seen,
    of: (id: string) => seen.filter((s) => s.id === id),
    async close() {
      controller.abort();
      await reading;
    },
  };
}

const ORDER = ['pending', 'sent', 'submitted', 'mined', 'confirmed'];

test('a stream on one instance sees what another instance commits, each change once', { skip }, async (t) => {
  const anvil = await startAnvil();
  t.after(() => anvil.stop());
  const cluster = await createCluster(t, { network: anvil.network('local') });
  const [a, b] = [cluster.start('a'), cluster.start('b')];
  await Promise.all([a.listening, b.listening]);
  const onA = await openStream(a, cluster.apiKey);
  const onB = await openStream(b, cluster.apiKey);
  t.after(async () => {
    await onA.close();
    await onB.close();
  });

  const sent: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await b.request('POST', '/api/v1/relayers/hot/transactions', { body: SEND });
    assert.equal(r.status, 200, r.text);
    sent.push((r.body.data as { id: string }).id);
  }
  await waitFor(
    () => sent.every((id) => onA.of(id).at(-1)?.status === 'confirmed' && onB.of(id).at(-1)?.status === 'confirmed'),
    'both streams to see every send confirmed',
  );

  for (const id of sent) {
    for (const [name, stream] of [
      ['a', onA],
      ['b', onB],
    ] as const) {
      const mine = stream.of(id);
      // Never back in time, and never the same state twice in a row (the writer's own change shown once).
      const ranks = mine.map((s) => ORDER.indexOf(s.status));
      assert.deepEqual(
        ranks,
        [...ranks].sort((x, y) => x - y),
        `${name}: ${mine.map((s) => s.status).join(' → ')}`,
      );
      for (let k = 1; k < mine.length; k++)
        assert.notEqual(mine[k]!.json, mine[k - 1]!.json, `${name} showed one state of ${id} twice`);
    }
    // The other instance's stream saw more than the end state.
    assert.ok(onA.of(id).length >= 2, `a saw ${onA.of(id).length} change(s) of ${id}`);
  }

  await t.test('a change written by another tool (psql) reaches both streams', async () => {
    const id = sent[0]!;
    const client = new pg.Client({ connectionString: cluster.databaseUrl });
    await client.connect();
    try {
      await client.query(
        `UPDATE transactions SET record = jsonb_set(record::jsonb, '{status_reason}', '"noted by an operator"')::text, version = version + 1 WHERE id = $1`,
        [id],
      );
    } finally {
      await client.end();
    }
    const noted = (s: Seen) => s.json.includes('noted by an operator');
    await waitFor(() => onA.of(id).some(noted) && onB.of(id).some(noted), "both streams to see the operator's change");
  });
});
