// The SIMULATED Stellar network's operations (see stellar-rpc.ts): payment, create account, change trust and path payment
// strict send (to XLM, against a simulated book) with stellar-core's result codes.
import { Asset, StrKey, xdr, type Operation } from '@stellar/stellar-base';

export interface SimAccount {
  balance: bigint;
  seq: bigint;
  subentries: number;
  /** By the asset's TrustLineAsset XDR (base64). */
  trustlines: Map<string, { balance: bigint; limit: bigint }>;
}

export interface Ledger {
  accounts: Map<string, SimAccount>;
  ledger: number;
  baseReserve: bigint;
  /**
   * The simulated order book for path payments: per `CODE:ISSUER`, [n, d] units of it per unit of XLM, with
   * unlimited depth (a market maker always there). Set by the test, like the simulated Horizon's prices.
   */
  prices: Map<string, [bigint, bigint]>;
}

const INT64_MAX = 2n ** 63n - 1n;
const stroops = (amount: string) => {
  const [whole, frac = ''] = amount.split('.');
  return BigInt(whole!) * 10_000_000n + BigInt(frac.padEnd(7, '0'));
};
const trustKey = (asset: Asset) => asset.toTrustLineXDRObject().toXDR('base64');
const minimum = (ledger: Ledger, a: SimAccount) => ledger.baseReserve * (2n + BigInt(a.subentries));

type Outcome = { ok: boolean; result: xdr.OperationResult };
const inner = (tr: xdr.OperationResultTr, ok: boolean): Outcome => ({ ok, result: xdr.OperationResult.opInner(tr) });

function payment(ledger: Ledger, op: Operation.Payment, source: string): Outcome {
  const P = xdr.PaymentResult;
  const done = (r: xdr.PaymentResult, ok = false) => inner(xdr.OperationResultTr.payment(r), ok);
  const amount = stroops(op.amount);
  const from = ledger.accounts.get(source)!;
  const dest = ledger.accounts.get(op.destination);
  if (!dest) return done(P.paymentNoDestination());
  if (op.asset.isNative()) {
    if (from.balance - amount < minimum(ledger, from)) return done(P.paymentUnderfunded());
    from.balance -= amount;
    dest.balance += amount;
    return done(P.paymentSuccess(), true);
  }
  const key = trustKey(op.asset);
  const issuer = op.asset.getIssuer();
  const fromLine = source === issuer ? null : from.trustlines.get(key);
  const destLine = op.destination === issuer ? null : dest.trustlines.get(key);
  if (source !== issuer && !fromLine) return done(P.paymentSrcNoTrust());
  if (op.destination !== issuer && !destLine) return done(P.paymentNoTrust());
  if (fromLine && fromLine.balance < amount) return done(P.paymentUnderfunded());
  if (destLine && destLine.balance + amount > destLine.limit) return done(P.paymentLineFull());
  if (fromLine) fromLine.balance -= amount;
  if (destLine) destLine.balance += amount;
  return done(P.paymentSuccess(), true);
}

function createAccount(ledger: Ledger, op: Operation.CreateAccount, source: string): Outcome {
  const C = xdr.CreateAccountResult;
  const done = (r: xdr.CreateAccountResult, ok = false) => inner(xdr.OperationResultTr.createAccount(r), ok);
  const amount = stroops(op.startingBalance);
  const from = ledger.accounts.get(source)!;
  if (ledger.accounts.has(op.destination)) return done(C.createAccountAlreadyExist());
  if (amount < 2n * ledger.baseReserve) return done(C.createAccountLowReserve());
  if (from.balance - amount < minimum(ledger, from)) return done(C.createAccountUnderfunded());
  from.balance -= amount;
  ledger.accounts.set(op.destination, {
    balance: amount,
    seq: BigInt(ledger.ledger) << 32n,
    subentries: 0,
    trustlines: new Map(),
  });
  return done(C.createAccountSuccess(), true);
}

function changeTrust(ledger: Ledger, op: Operation.ChangeTrust, source: string): Outcome {
  const T = xdr.ChangeTrustResult;
  const done = (r: xdr.ChangeTrustResult, ok = false) => inner(xdr.OperationResultTr.changeTrust(r), ok);
  const asset = op.line as Asset;
  const from = ledger.accounts.get(source)!;
  if (!ledger.accounts.has(asset.getIssuer())) return done(T.changeTrustNoIssuer());
  const limit = op.limit === undefined ? INT64_MAX : stroops(op.limit);
  const key = trustKey(asset);
  const line = from.trustlines.get(key);
  if (line && limit < line.balance) return done(T.changeTrustInvalidLimit());
  if (limit === 0n) {
    if (line) {
      from.trustlines.delete(key);
      from.subentries -= 1;
    }
    return done(T.changeTrustSuccess(), true);
  }
  if (line) line.limit = limit;
  else {
    if (from.balance < ledger.baseReserve * (3n + BigInt(from.subentries))) return done(T.changeTrustLowReserve());
    from.trustlines.set(key, { balance: 0n, limit });
    from.subentries += 1;
  }
  return done(T.changeTrustSuccess(), true);
}

/** Path payment strict send from a credit asset to XLM, through the simulated book (direct, any `path` ignored). */
function pathPaymentStrictSend(ledger: Ledger, op: Operation.PathPaymentStrictSend, source: string): Outcome {
  const P = xdr.PathPaymentStrictSendResult;
  const done = (r: xdr.PathPaymentStrictSendResult, ok = false) =>
    inner(xdr.OperationResultTr.pathPaymentStrictSend(r), ok);
  const send = op.sendAsset;
  if (send.isNative() || !op.destAsset.isNative()) return done(P.pathPaymentStrictSendTooFewOffers());
  const from = ledger.accounts.get(source)!;
  const dest = ledger.accounts.get(op.destination);
  if (!dest) return done(P.pathPaymentStrictSendNoDestination());
  const line = from.trustlines.get(trustKey(send));
  if (!line) return done(P.pathPaymentStrictSendSrcNoTrust());
  const amount = stroops(op.sendAmount);
  if (line.balance < amount) return done(P.pathPaymentStrictSendUnderfunded());
  const price = ledger.prices.get(`${send.getCode()}:${send.getIssuer()}`);
  if (!price) return done(P.pathPaymentStrictSendTooFewOffers());
  const out = (amount * price[1]) / price[0];
  if (out < stroops(op.destMin)) return done(P.pathPaymentStrictSendUnderDestmin());
  line.balance -= amount;
  dest.balance += out;
  const last = new xdr.SimplePaymentResult({
    destination: xdr.PublicKey.publicKeyTypeEd25519(StrKey.decodeEd25519PublicKey(op.destination)),
    asset: Asset.native().toXDRObject(),
    amount: xdr.Int64.fromString(out.toString()),
  });
  return done(P.pathPaymentStrictSendSuccess(new xdr.PathPaymentStrictSendResultSuccess({ offers: [], last })), true);
}

/** Applies one operation to the ledger state; operations this simulation does not run answer op_not_supported. */
export function applyOperation(ledger: Ledger, op: Operation, txSource: string): Outcome {
  const source = op.source ?? txSource;
  if (!ledger.accounts.has(source)) return { ok: false, result: xdr.OperationResult.opNoAccount() };
  switch (op.type) {
    case 'payment':
      return payment(ledger, op, source);
    case 'createAccount':
      return createAccount(ledger, op, source);
    case 'changeTrust':
      return changeTrust(ledger, op, source);
    case 'pathPaymentStrictSend':
      return pathPaymentStrictSend(ledger, op, source);
    default:
      return { ok: false, result: xdr.OperationResult.opNotSupported() };
  }
}
