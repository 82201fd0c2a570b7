// Solana and Stellar send-to-confirmed, end to end: the real service (its own process) relays to the SIMULATED networks of
// the test support code (Solana: a JSON-RPC stand-in over the real SVM; Stellar: a Stellar RPC stand-in checking real XDR
// and signatures), and a webhook receiver notes when each transaction's `confirmed` event arrives.
// Chain time is part of each figure: Solana finalizes FINALIZE_DEPTH slots of SLOT_MS after landing; Stellar takes one
// ledger of LEDGER_MS per transaction and account (stellar-core queues one transaction per source account).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-base';
import { startSolanaSim } from '../test/support/solana-rpc.ts';
import { startStellarSim } from '../test/support/stellar-rpc.ts';
import { solanaKey, solanaSetup, transfer } from '../test/transactions/solana-support.ts';
import { payment, stellarSetup } from '../test/transactions/stellar-support.ts';
import type { Row } from './report.ts';
import { startService } from './service.ts';

const SLOT_MS = 40;
const FINALIZE_DEPTH = 8;
const LEDGER_MS = 100;
const API_KEY = 'bench-api-key-0123456789abcdef0123456789';
const HEADERS = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };

/** Collects `confirmed` (and other final) webhook arrivals by transaction id. */
async function startReceiver() {
  const finals = new Map<string, { at: number; status: string }>();
  const waiters = new Set<() => void>();
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const payload = (
        JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload: { id: string; status: string } }
      ).payload;
      if (['confirmed', 'failed', 'expired', 'canceled'].includes(payload.status) && !finals.has(payload.id)) {
        finals.set(payload.id, { at: performance.now(), status: payload.status });
        for (const w of waiters) w();
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    finals,
    until: (done: () => boolean, timeoutMs: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('timed out waiting for final webhooks')), timeoutMs);
        const check = () => {
          if (!done()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `count` sends with `inflight` at a time (distinct amounts: distinct transfers); each one's latency runs from its POST to its final webhook. */
async function measure(
  url: string,
  relayer: string,
  body: (i: number) => unknown,
  count: number,
  inflight: number,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
): Promise<Omit<Row, 'scenario'>> {
  const started = new Map<string, number>();
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const at = performance.now();
      const res = await fetch(`${url}/api/v1/relayers/${relayer}/transactions`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify(body(i)),
      });
      const json = (await res.json()) as { data?: { id: string } };
      if (res.status === 200 && json.data) started.set(json.data.id, at);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  await receiver.until(() => [...started.keys()].every((id) => receiver.finals.has(id)), 300_000);
  const latencies = [...started].map(([id, at]) => receiver.finals.get(id)!.at - at).sort((a, b) => a - b);
  const notConfirmed = [...started.keys()].filter((id) => receiver.finals.get(id)!.status !== 'confirmed').length;
  const end = Math.max(...[...started.keys()].map((id) => receiver.finals.get(id)!.at));
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    inflight,
    requests: started.size,
    errors: errors + notConfirmed,
    rps: (started.size * 1000) / (end - t0),
    p50: pick(0.5),
    p99: pick(0.99),
    max: latencies[latencies.length - 1] ?? 0,
  };
}

export async function chainSends(count: number, inflight: number, log: (msg: string) => void): Promise<Row[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'relaybox-bench-chains-'));
  const solana = await startSolanaSim({ slotMs: SLOT_MS, finalizeDepth: FINALIZE_DEPTH });
  const stellar = await startStellarSim({ ledgerMs: LEDGER_MS });
  const receiver = await startReceiver();
  const sol = solanaSetup(solana, 'sol', { webhook: receiver.url, slotMs: SLOT_MS });
  const xlm = stellarSetup(stellar, 'xlm', { webhook: receiver.url, ledgerMs: LEDGER_MS });
  const configPath = path.join(root, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      networks: [...sol.config.networks!, ...xlm.config.networks!],
      signers: [...sol.config.signers!, ...xlm.config.signers!],
      relayers: [...sol.config.relayers!, ...xlm.config.relayers!],
      notifications: sol.config.notifications,
      plugins: [],
    }),
  );
  const svc = await startService({
    API_KEY,
    DATA_DIR: path.join(root, 'data'),
    PLUGINS_DIR: path.join(root, 'plugins'),
    CONFIG_PATH: configPath,
    RATE_LIMIT_RPS: '100000000',
    RATE_LIMIT_BURST: '100000000',
  });
  try {
    const dest = solanaKey('bench destination').signer.address;
    log(`Solana send → confirmed (finalized) ×${count} @${inflight}`);
    const solRow = await measure(
      svc.url,
      'sol',
      (i) => ({ instructions: [transfer(sol.address, dest, 1_000_000n + BigInt(i))] }),
      count,
      inflight,
      receiver,
    );
    const xlmDest = Keypair.random().publicKey();
    stellar.fund(xlmDest, 10_000_000n);
    log(`Stellar send → confirmed ×${count} @${inflight}`);
    const xlmRow = await measure(
      svc.url,
      'xlm',
      (i) => ({ network: 'stellar-sim', operations: [payment(xlmDest, 1_000 + i)] }),
      count,
      inflight,
      receiver,
    );
    // Every confirmed transfer landed once: the destinations hold exactly the sum sent.
    const sum = (base: bigint) => BigInt(count) * base + BigInt((count * (count - 1)) / 2);
    if (solana.balance(dest) !== sum(1_000_000n)) solRow.errors += 1;
    if (stellar.account(xlmDest)!.balance !== 10_000_000n + sum(1_000n)) xlmRow.errors += 1;
    return [
      {
        scenario: `Solana send → confirmed (simulated: ${SLOT_MS} ms slots, finalized ${FINALIZE_DEPTH} slots on)`,
        ...solRow,
        note: 'rps: confirmed per second',
      },
      {
        scenario: `Stellar send → confirmed (simulated: ${LEDGER_MS} ms ledgers, one account)`,
        ...xlmRow,
        note: 'rps: confirmed per second',
      },
    ];
  } finally {
    await svc.stop();
    await Promise.all([solana.close(), stellar.close(), receiver.close()]);
    rmSync(root, { recursive: true, force: true });
  }
}

// `node bench/chain-sends.ts [count]`: this scenario alone (npm run bench runs it with the others).
if (import.meta.main) {
  const rows = await chainSends(Number(process.argv[2] ?? 50), 16, (msg) => process.stderr.write(`${msg}\n`));
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
}
