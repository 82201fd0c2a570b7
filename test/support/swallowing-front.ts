// A "swallowing" RPC provider in front of a simulated Solana or Stellar network (issue 40), the JSON-RPC shapes of
// those networks as rpc-proxy.ts's `swallow` mode is for EVM: the submission method (`sendTransaction` on both) is
// answered by the front itself as an accepting node answers it (Solana: the transaction's signature; Stellar:
// PENDING with its hash) and never forwarded; every other request is forwarded to the network as is, so reads through
// it see the real chain. `swallowing = false` turns it into an honest pass-through.
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { getBase58Decoder, getBase64Encoder, getTransactionDecoder } from '@solana/kit';
import { TransactionBuilder } from '@stellar/stellar-base';

export interface SwallowingFront {
  url: string;
  swallowing: boolean;
  /** Submissions answered here and never forwarded. */
  readonly swallowed: number;
  close(): Promise<void>;
}

type Item = { jsonrpc?: string; id?: unknown; method?: string; params?: unknown };
/** The `result` an accepting node gives for this submission, computed from the submission itself. */
type Accept = (item: Item, upstream: (method: string, params: unknown) => Promise<any>) => Promise<unknown>;

async function startFront(upstream: string, accept: Accept): Promise<SwallowingFront> {
  let swallowed = 0;
  const ask = async (method: string, params: unknown) => {
    const res = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result?: unknown }).result;
  };
  const front = { swallowing: true };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let item: Item | undefined;
    try {
      item = JSON.parse(body.toString()) as Item;
    } catch {
      item = undefined;
    }
    if (front.swallowing && item?.method === 'sendTransaction') {
      swallowed++;
      const result = await accept(item, ask);
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: item.id, result }));
    }
    const answer = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(body),
    }).catch(() => null);
    if (!answer) return void res.socket?.destroy();
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get swallowing() {
      return front.swallowing;
    },
    set swallowing(on: boolean) {
      front.swallowing = on;
    },
    get swallowed() {
      return swallowed;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}

/** Solana: sendTransaction answered with the fee payer's signature (base58), as a node that accepted it. */
export function startSolanaSwallower(upstream: string): Promise<SwallowingFront> {
  return startFront(upstream, async (item) => {
    const wire = (item.params as [string])[0];
    const tx = getTransactionDecoder().decode(new Uint8Array(getBase64Encoder().encode(wire)));
    return getBase58Decoder().decode(Object.values(tx.signatures)[0]!);
  });
}

/** Stellar: sendTransaction answered PENDING with the envelope's hash and the network's latest ledger. */
export function startStellarSwallower(upstream: string, passphrase: string): Promise<SwallowingFront> {
  return startFront(upstream, async (item, ask) => {
    const envelope = (item.params as { transaction: string }).transaction;
    const hash = TransactionBuilder.fromXDR(envelope, passphrase).hash().toString('hex');
    const latest = (await ask('getLatestLedger', {})) as { sequence: number };
    return {
      status: 'PENDING',
      hash,
      latestLedger: latest.sequence,
      latestLedgerCloseTime: String(Math.floor(Date.now() / 1000)),
    };
  });
}
