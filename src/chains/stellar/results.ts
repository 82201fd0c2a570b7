// Stellar result codes, decoded from TransactionResult XDR into Horizon's snake_case names (tx_bad_seq, op_underfunded…).
import { xdr } from '@stellar/stellar-base';
import type { StellarResultCodes } from '../../domain/chains/stellar/ports.ts';

const snake = (camel: string) => camel.replace(/([A-Z])/g, '_$1').toLowerCase();

// Where Horizon's names differ from the XDR's.
const TX_RENAMES: Record<string, string> = { txNoAccount: 'tx_no_source_account' };
const OP_RENAMES: Record<string, string> = { opNoAccount: 'op_no_source_account' };
/** An operation type's code where Horizon spells it otherwise (`op_already_exists`, `op_under_dest_min`). */
const OP_CODE_RENAMES: Record<string, string> = { AlreadyExist: 'AlreadyExists', UnderDestmin: 'UnderDestMin' };

/** `txBadSeq` → `tx_bad_seq`. */
const txCode = (name: string): string => TX_RENAMES[name] ?? snake(name);

/** One operation's result: `opInner` carries the operation type's own code (`paymentUnderfunded` → `op_underfunded`). */
function opCode(result: xdr.OperationResult): string {
  const name = result.switch().name;
  if (name !== 'opInner') return OP_RENAMES[name] ?? snake(name);
  const tr = result.tr();
  const type = tr.switch().name; // e.g. `payment`, `createAccount`, `invokeHostFunction`
  const code = (tr.value() as { switch(): { name: string } }).switch().name; // e.g. `paymentUnderfunded`
  const rest = code.startsWith(type) ? code.slice(type.length) : code;
  if (rest === 'Success') return 'op_success';
  return `op${snake(OP_CODE_RENAMES[rest] ?? rest)}`;
}

type ResultBody = { switch(): { name: string }; results?: () => xdr.OperationResult[] };

function opCodes(body: ResultBody): string[] {
  const name = body.switch().name;
  if ((name === 'txSuccess' || name === 'txFailed') && body.results) return body.results().map(opCode);
  return [];
}

function decodeResult(result: xdr.TransactionResult): StellarResultCodes {
  const body = result.result() as unknown as ResultBody & { innerResultPair?: () => xdr.InnerTransactionResultPair };
  const name = body.switch().name;
  if ((name === 'txFeeBumpInnerSuccess' || name === 'txFeeBumpInnerFailed') && body.innerResultPair) {
    const inner = body.innerResultPair().result().result() as unknown as ResultBody;
    return { code: txCode(name), innerCode: txCode(inner.switch().name), opCodes: opCodes(inner) };
  }
  return { code: txCode(name), innerCode: null, opCodes: opCodes(body) };
}

/** Decodes base64 TransactionResult XDR; an undecodable one gives `code: 'unknown'` (the raw XDR stays in the record). */
export function decodeResultXdr(resultXdr: string | null | undefined): StellarResultCodes {
  if (!resultXdr) return { code: 'unknown', innerCode: null, opCodes: [] };
  try {
    return decodeResult(xdr.TransactionResult.fromXDR(resultXdr, 'base64'));
  } catch {
    return { code: 'unknown', innerCode: null, opCodes: [] };
  }
}

/** The reference's layered reason: `Transaction failed on-chain. reason=tx_failed op=op_underfunded`. */
export function describeFailure(codes: StellarResultCodes): string {
  let text = `Transaction failed on-chain. reason=${codes.code}`;
  if (codes.innerCode) text += ` inner=${codes.innerCode}`;
  const op = codes.opCodes.find((c) => c !== 'op_success');
  if (op) text += ` op=${op}`;
  return text;
}
