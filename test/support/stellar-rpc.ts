// A SIMULATED Stellar network for tests: a small Stellar RPC (JSON-RPC over HTTP) around real XDR and real signature checks.
//
// Runs for real: envelope parsing and hashing with the network passphrase (@stellar/stellar-base), Ed25519
// signature checks of the source, the fee source and operation sources, result XDR as stellar-core encodes it.
// Simulated here, honestly and on purpose: one validator whose ledgers close on a timer or on demand; accounts
// with native balances, sequence numbers, trustlines and reserves (0.5 XLM base reserve); the operations
// payment, create_account, change_trust and path_payment_strict_send (to XLM, at a price the test sets, unlimited depth) applied with core's result codes (others answer op_not_supported:
// no Soroban VM runs here, and simulateTransaction says so); the queue rule of stellar-core 19+ (one pending
// transaction per source account, a second one answers TRY_AGAIN_LATER); fees charged at the base fee.
// Answers use Stellar RPC's documented shapes (sendTransaction PENDING / DUPLICATE / TRY_AGAIN_LATER / ERROR with
// errorResultXdr; getTransaction SUCCESS / FAILED / NOT_FOUND) without resultMetaXdr.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  Asset,
  FeeBumpTransaction,
  Keypair,
  StrKey,
  type Transaction,
  TransactionBuilder,
  xdr,
} from '@stellar/stellar-base';
import { applyOperation, type Ledger } from './stellar-ops.ts';

const BASE_RESERVE = 5_000_000n;

export interface StellarSimOptions {
  passphrase?: string;
  /** Ledger close period on the timer; 0: ledgers close only on demand (`closeLedger`). */
  ledgerMs?: number;
  baseFee?: bigint;
}

interface Queued {
  hash: string;
  tx: Transaction | FeeBumpTransaction;
  envelopeXdr: string;
}

interface Applied {
  status: 'SUCCESS' | 'FAILED';
  ledger: number;
  createdAt: number;
  envelopeXdr: string;
  resultXdr: string;
  feeBump: boolean;
}

const trustKey = (asset: string) => {
  const [code, issuer] = asset.split(':') as [string, string];
  return new Asset(code, issuer).toTrustLineXDRObject().toXDR('base64');
};
const i64 = (n: bigint) => xdr.Int64.fromString(n.toString());
const inner = (tx: Transaction | FeeBumpTransaction) => (tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx);

function txResult(fee: bigint, result: xdr.TransactionResultResult): string {
  return new xdr.TransactionResult({ feeCharged: i64(fee), result, ext: new xdr.TransactionResultExt(0) }).toXDR(
    'base64',
  );
}

/** An inner failure wrapped the way core reports a fee bump's. */
function bumpResult(
  tx: FeeBumpTransaction,
  success: boolean,
  innerResult: xdr.InnerTransactionResultResult,
): xdr.TransactionResultResult {
  const pair = new xdr.InnerTransactionResultPair({
    transactionHash: tx.innerTransaction.hash(),
    result: new xdr.InnerTransactionResult({
      feeCharged: i64(0n),
      result: innerResult,
      ext: new xdr.InnerTransactionResultExt(0),
    }),
  });
  return success
    ? xdr.TransactionResultResult.txFeeBumpInnerSuccess(pair)
    : xdr.TransactionResultResult.txFeeBumpInnerFailed(pair);
}

/** Every required signer (the hash's) has a valid signature among the decorated ones. */
function signedBy(tx: Transaction | FeeBumpTransaction, signers: string[]): boolean {
  const hash = tx.hash();
  return signers.every((address) => {
    const kp = Keypair.fromPublicKey(address);
    return tx.signatures.some(
      (s) => Buffer.compare(s.hint(), kp.signatureHint()) === 0 && kp.verify(hash, s.signature()),
    );
  });
}

const innerSigners = (tx: Transaction) =>
  [...new Set([tx.source, ...tx.operations.map((op) => op.source ?? tx.source)])].filter((a) =>
    StrKey.isValidEd25519PublicKey(a),
  );

class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

export interface StellarSim {
  url: string;
  passphrase: string;
  readonly ledger: number;
  closeLedger(): void;
  /** The next `n` submissions answer TRY_AGAIN_LATER (as a busy node does). */
  tryAgainLater(n: number): void;
  /** Creates (or tops up) an account with `stroops`, as friendbot does. */
  fund(address: string, stroops: bigint): void;
  account(address: string): { balance: bigint; seq: bigint } | undefined;
  /** Opens a trustline to `CODE:ISSUER` (if none) and credits `units` of it, as a payment from the issuer does. */
  credit(address: string, asset: string, units: bigint): void;
  /** Path payments sell `CODE:ISSUER` for XLM at `tokenPerXlm` (a decimal string) on the simulated book. */
  setPrice(asset: string, tokenPerXlm: string): void;
  /** The account's balance of `CODE:ISSUER`; undefined without a trustline. */
  assetBalance(address: string, asset: string): bigint | undefined;
  /** Forgets queued transactions without applying them (a node restart drops its queue). */
  dropQueue(): void;
  /** While on, sendTransaction answers PENDING and keeps nothing (a provider that swallows submissions, issue 40). */
  swallow(on: boolean): void;
  readonly calls: Map<string, number>;
  close(): Promise<void>;
}

export async function startStellarSim(options: StellarSimOptions = {}): Promise<StellarSim> {
  const passphrase = options.passphrase ?? 'Relaybox Simulated Network ; 2026';
  const baseFee = options.baseFee ?? 100n;
  const state: Ledger = { accounts: new Map(), ledger: 2, baseReserve: BASE_RESERVE, prices: new Map() };
  let closeTime = Math.floor(Date.now() / 1000);
  let busy = 0;
  let swallowing = false;
  const queue: Queued[] = [];
  const applied = new Map<string, Applied>();
  const calls = new Map<string, number>();

  /** Checks core makes before queueing; null when acceptable, else the failure result. */
  function checkValid(tx: Transaction | FeeBumpTransaction): xdr.TransactionResultResult | null {
    const t = inner(tx);
    const now = Math.floor(Date.now() / 1000);
    const R = xdr.TransactionResultResult;
    const source = state.accounts.get(t.source);
    if (!source) return R.txNoAccount();
    const max = Number(t.timeBounds?.maxTime ?? 0);
    if (max !== 0 && now > max) return R.txTooLate();
    if (Number(t.timeBounds?.minTime ?? 0) > now) return R.txTooEarly();
    if (BigInt(t.sequence) !== source.seq + 1n) return R.txBadSeq();
    const ops = BigInt(t.operations.length);
    const bump = tx instanceof FeeBumpTransaction;
    const feeSource = state.accounts.get(bump ? tx.feeSource : t.source);
    if (!feeSource) return R.txNoAccount();
    if (
      BigInt(tx.fee) < baseFee * (bump ? ops + 1n : ops) ||
      (bump && BigInt(tx.fee) / (ops + 1n) < BigInt(t.fee) / ops)
    )
      return R.txInsufficientFee();
    if (feeSource.balance - state.baseReserve * (2n + BigInt(feeSource.subentries)) < BigInt(tx.fee))
      return R.txInsufficientBalance();
    if (bump && !signedBy(tx, [tx.feeSource])) return R.txBadAuth();
    if (!signedBy(t, innerSigners(t)))
      return bump ? bumpResult(tx, false, xdr.InnerTransactionResultResult.txBadAuth()) : R.txBadAuth();
    return null;
  }

  function apply({ hash, tx, envelopeXdr }: Queued): void {
    if (checkValid(tx) !== null) return; // no longer valid at apply time: dropped, never in a ledger
    const t = inner(tx);
    const bump = tx instanceof FeeBumpTransaction;
    const fee = baseFee * BigInt(t.operations.length + (bump ? 1 : 0));
    state.accounts.get(bump ? tx.feeSource : t.source)!.balance -= fee;
    state.accounts.get(t.source)!.seq += 1n;
    const results: xdr.OperationResult[] = [];
    const snapshot = structuredClone(state.accounts);
    let ok = true;
    for (const op of t.operations) {
      const r = applyOperation(state, op, t.source);
      results.push(r.result);
      if (!r.ok) {
        ok = false;
        break;
      }
    }
    // All or nothing: the fee and the sequence stay charged, the operations' effects are undone.
    if (!ok) state.accounts = snapshot;
    const R = xdr.TransactionResultResult;
    const IR = xdr.InnerTransactionResultResult;
    const result = bump
      ? bumpResult(tx, ok, ok ? IR.txSuccess(results) : IR.txFailed(results))
      : ok
        ? R.txSuccess(results)
        : R.txFailed(results);
    applied.set(hash, {
      status: ok ? 'SUCCESS' : 'FAILED',
      ledger: state.ledger,
      createdAt: closeTime,
      envelopeXdr,
      resultXdr: txResult(fee, result),
      feeBump: bump,
    });
  }

  function closeLedger() {
    state.ledger += 1;
    closeTime = Math.floor(Date.now() / 1000);
    for (const q of queue.splice(0)) apply(q);
  }
  const timer = options.ledgerMs ? setInterval(closeLedger, options.ledgerMs) : undefined;
  timer?.unref();

  function sendTransaction(envelope: string) {
    let tx: Transaction | FeeBumpTransaction;
    try {
      tx = TransactionBuilder.fromXDR(envelope, passphrase);
    } catch {
      throw new RpcError(-32602, 'invalid_xdr');
    }
    const hash = tx.hash().toString('hex');
    const base = { hash, latestLedger: state.ledger, latestLedgerCloseTime: String(closeTime) };
    if (queue.some((q) => q.hash === hash)) return { ...base, status: 'DUPLICATE' };
    if (swallowing) return { ...base, status: 'PENDING' };
    if (busy > 0) {
      busy -= 1;
      return { ...base, status: 'TRY_AGAIN_LATER' };
    }
    // stellar-core 19+: one pending transaction per source account, checked before the transaction itself.
    if (queue.some((q) => inner(q.tx).source === inner(tx).source)) return { ...base, status: 'TRY_AGAIN_LATER' };
    const failure = checkValid(tx);
    if (failure) return { ...base, status: 'ERROR', errorResultXdr: txResult(0n, failure) };
    queue.push({ hash, tx, envelopeXdr: envelope });
    return { ...base, status: 'PENDING' };
  }

  function getTransaction(hash: string) {
    const base = {
      latestLedger: state.ledger,
      latestLedgerCloseTime: String(closeTime),
      oldestLedger: 1,
      oldestLedgerCloseTime: '0',
    };
    const t = applied.get(hash);
    if (!t) return { ...base, status: 'NOT_FOUND' };
    return {
      ...base,
      status: t.status,
      txHash: hash,
      applicationOrder: 1,
      feeBump: t.feeBump,
      envelopeXdr: t.envelopeXdr,
      resultXdr: t.resultXdr,
      ledger: t.ledger,
      createdAt: String(t.createdAt),
    };
  }

  function ledgerEntry(keyXdr: string) {
    const key = xdr.LedgerKey.fromXDR(keyXdr, 'base64');
    const kind = key.switch().name;
    if (kind !== 'account' && kind !== 'trustline') return null;
    const id = StrKey.encodeEd25519PublicKey(
      (kind === 'account' ? key.account() : key.trustLine()).accountId().ed25519(),
    );
    const acc = state.accounts.get(id);
    if (!acc) return null;
    const accountId = Keypair.fromPublicKey(id).xdrAccountId();
    let data: xdr.LedgerEntryData;
    if (kind === 'account') {
      data = xdr.LedgerEntryData.account(
        new xdr.AccountEntry({
          accountId,
          balance: i64(acc.balance),
          seqNum: i64(acc.seq),
          numSubEntries: acc.subentries,
          inflationDest: null,
          flags: 0,
          homeDomain: '',
          thresholds: Buffer.from([1, 0, 0, 0]),
          signers: [],
          ext: new xdr.AccountEntryExt(0),
        }),
      );
    } else {
      const asset = key.trustLine().asset();
      const line = acc.trustlines.get(asset.toXDR('base64'));
      if (!line) return null;
      data = xdr.LedgerEntryData.trustline(
        new xdr.TrustLineEntry({
          accountId,
          asset,
          balance: i64(line.balance),
          limit: i64(line.limit),
          flags: 1,
          ext: new xdr.TrustLineEntryExt(0),
        }),
      );
    }
    return { key: keyXdr, xdr: data.toXDR('base64'), lastModifiedLedgerSeq: state.ledger };
  }

  const fees = () =>
    Object.fromEntries(
      ['max', 'min', 'mode', 'p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'].map((k) => [
        k,
        String(baseFee),
      ]),
    );
  const methods: Record<string, (p: Record<string, unknown>) => unknown> = {
    getHealth: () => ({ status: 'healthy', latestLedger: state.ledger, oldestLedger: 1, ledgerRetentionWindow: 17280 }),
    getNetwork: () => ({ passphrase, protocolVersion: 23 }),
    getLatestLedger: () => ({
      id: Buffer.alloc(32, state.ledger % 256).toString('hex'),
      protocolVersion: 23,
      sequence: state.ledger,
    }),
    getFeeStats: () => ({
      sorobanInclusionFee: { ...fees(), transactionCount: '0', ledgerCount: 50 },
      inclusionFee: { ...fees(), transactionCount: '0', ledgerCount: 50 },
      latestLedger: state.ledger,
    }),
    getLedgerEntries: (p) => ({
      entries: (p.keys as string[]).map(ledgerEntry).filter((e) => e !== null),
      latestLedger: state.ledger,
    }),
    sendTransaction: (p) => sendTransaction(p.transaction as string),
    getTransaction: (p) => getTransaction(p.hash as string),
    simulateTransaction: () => ({
      error: 'this simulated network runs no Soroban VM: contract calls cannot be simulated',
      latestLedger: state.ledger,
    }),
  };

  async function answer(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: { id?: unknown; method?: string; params?: Record<string, unknown> };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } };
    }
    calls.set(body.method ?? '', (calls.get(body.method ?? '') ?? 0) + 1);
    const method = methods[body.method ?? ''];
    if (!method) return { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'method not found' } };
    try {
      return { jsonrpc: '2.0', id: body.id, result: method(body.params ?? {}) };
    } catch (err) {
      return {
        jsonrpc: '2.0',
        id: body.id,
        error: { code: err instanceof RpcError ? err.code : -32602, message: (err as Error).message },
      };
    }
  }

  const server: Server = createServer((req, res) => {
    answer(req).then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    passphrase,
    get ledger() {
      return state.ledger;
    },
    closeLedger,
    tryAgainLater: (n) => void (busy = n),
    fund(address, stroops) {
      const acc = state.accounts.get(address);
      if (acc) acc.balance += stroops;
      else
        state.accounts.set(address, {
          balance: stroops,
          seq: BigInt(state.ledger) << 32n,
          subentries: 0,
          trustlines: new Map(),
        });
    },
    account: (address) => state.accounts.get(address),
    credit(address, asset, units) {
      const acc = state.accounts.get(address);
      if (!acc) throw new Error(`no account ${address}`);
      const key = trustKey(asset);
      const line = acc.trustlines.get(key);
      if (line) line.balance += units;
      else {
        acc.trustlines.set(key, { balance: units, limit: 2n ** 63n - 1n });
        acc.subentries += 1;
      }
    },
    setPrice(asset, tokenPerXlm) {
      const [whole, frac = ''] = tokenPerXlm.split('.');
      state.prices.set(asset, [BigInt(`${whole}${frac}`), 10n ** BigInt(frac.length)]);
    },
    assetBalance: (address, asset) => state.accounts.get(address)?.trustlines.get(trustKey(asset))?.balance,
    dropQueue: () => void queue.splice(0),
    swallow: (on) => void (swallowing = on),
    calls,
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
