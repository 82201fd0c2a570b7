// Test support: a rollup sequencer stand-in (Arbitrum- or OP-like), a JSON-RPC proxy in front of a real anvil. anvil
// keeps a pool and queues future nonces like an L1 node; a sequencer does neither, so this proxy imitates one honestly:
//   - eth_sendRawTransaction is taken one at a time; a nonce other than the sender's next one is refused with geth's
//     texts ("nonce too high: …", "nonce too low: …"); an accepted transaction is mined at once (evm_mine; automine
//     is off so anvil's own pool never holds anything between calls), and one the block could not include (below the
//     base fee) is dropped and refused ("max fee per gas less than block base fee"): there is no pending pool;
//   - eth_getTransactionCount at 'pending' answers 'latest' (there is nothing pending); txpool_* answers empty;
//   - everything else is forwarded to anvil as it is (batches too).
// With `l1Gas`, it imitates Arbitrum's gas accounting too: eth_estimateGas answers anvil's estimate plus `l1Gas` (the
// L1 cost a real Arbitrum node folds into its estimate), and a transaction whose gas limit does not cover both is
// refused as Arbitrum does ("intrinsic gas too low").
// The chaos suite uses it as well: useNonce() spends a nonce of any account behind the relayer's back.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  keccak256,
  numberToHex,
  parseTransaction,
  recoverTransactionAddress,
  type Hex,
  type TransactionSerialized,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { TestAnvil, TxFields } from './anvil.ts';

export interface SequencerProxy {
  /** The proxy's JSON-RPC URL: give it to the relayer as the network's rpc_urls. */
  readonly url: string;
  /** Every raw transaction offered to it, with what it answered (null: accepted and mined). */
  readonly offered: ReadonlyArray<{ raw: Hex; hash: Hex; refused: string | null }>;
  /** Signs a transaction from `key` with `fields` (nonce: the account's next unless given) and sequences it now. Returns its hash. */
  useNonce(key: Hex, fields?: TxFields): Promise<Hex>;
  close(): Promise<void>;
}

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}
type Answer = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string } };

const readBody = (req: IncomingMessage) =>
  new Promise<string>((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks).toString()));
    req.on('error', fail);
  });

/** Starts the proxy in front of `anvil` and turns anvil's automine off (the proxy mines on receipt). */
export async function startSequencerProxy(anvil: TestAnvil, options: { l1Gas?: bigint } = {}): Promise<SequencerProxy> {
  const l1Gas = options.l1Gas ?? 0n;
  await anvil.setAutomine(false);
  const offered: Array<{ raw: Hex; hash: Hex; refused: string | null }> = [];
  // One transaction sequenced at a time: the nonce read, the forward and the mine are one step.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  const refuse = (raw: Hex, hash: Hex, message: string): never => {
    offered.push({ raw, hash, refused: message });
    throw Object.assign(new Error(message), { code: -32000 });
  };

  async function sequence(raw: Hex): Promise<Hex> {
    const hash = keccak256(raw);
    const tx = parseTransaction(raw);
    const from = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized });
    const next = Number(await anvil.rpc<Hex>('eth_getTransactionCount', [from, 'latest']));
    if (tx.nonce! > next) refuse(raw, hash, `nonce too high: address ${from}, tx: ${tx.nonce} state: ${next}`);
    if (tx.nonce! < next) refuse(raw, hash, `nonce too low: address ${from}, tx: ${tx.nonce} state: ${next}`);
    if (l1Gas > 0n) {
      const call = { from, to: tx.to ?? undefined, data: tx.data, value: numberToHex(tx.value ?? 0n) };
      const needed = BigInt(await anvil.rpc<Hex>('eth_estimateGas', [call])) + l1Gas;
      if (tx.gas! < needed) refuse(raw, hash, `intrinsic gas too low: gas ${tx.gas}, minimum needed ${needed}`);
    }
    try {
      await anvil.rpc('eth_sendRawTransaction', [raw]);
    } catch (err) {
      refuse(raw, hash, (err as Error).message.replace(/^eth_sendRawTransaction: /, ''));
    }
    await anvil.rpc('evm_mine');
    if (!(await anvil.rpc('eth_getTransactionReceipt', [hash]))) {
      // The block left it out (its max fee is below the base fee): a sequencer keeps nothing for later.
      await anvil.dropTransaction(hash);
      refuse(raw, hash, 'max fee per gas less than block base fee');
    }
    offered.push({ raw, hash, refused: null });
    return hash;
  }

  async function answer(call: Call): Promise<Answer> {
    const base = { jsonrpc: '2.0' as const, id: call.id ?? null };
    const params = call.params ?? [];
    try {
      switch (call.method) {
        case 'eth_sendRawTransaction':
          return { ...base, result: await serial(() => sequence(params[0] as Hex)) };
        case 'eth_getTransactionCount':
          return {
            ...base,
            result: await anvil.rpc('eth_getTransactionCount', [
              params[0],
              params[1] === 'pending' ? 'latest' : params[1],
            ]),
          };
        case 'eth_estimateGas':
          return { ...base, result: numberToHex(BigInt(await anvil.rpc<Hex>('eth_estimateGas', params)) + l1Gas) };
        case 'txpool_content':
          return { ...base, result: { pending: {}, queued: {} } };
        case 'txpool_status':
          return { ...base, result: { pending: '0x0', queued: '0x0' } };
        default:
          return { ...base, result: await anvil.rpc(call.method ?? '', params) };
      }
    } catch (err) {
      const code = (err as { code?: number }).code ?? -32603;
      return { ...base, error: { code, message: (err as Error).message.replace(new RegExp(`^${call.method}: `), '') } };
    }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      try {
        const body = JSON.parse(await readBody(req)) as Call | Call[];
        const result = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
      }
    })();
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    offered,
    useNonce: async (key, fields = {}) =>
      serial(async () =>
        sequence(await anvil.signed(key, { ...fields, nonce: fields.nonce ?? (await latestNonce(anvil, key)) })),
      ),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function latestNonce(anvil: TestAnvil, key: Hex): Promise<number> {
  return Number(await anvil.rpc<Hex>('eth_getTransactionCount', [privateKeyToAccount(key).address, 'latest']));
}
