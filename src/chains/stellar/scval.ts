// Contract call arguments: the reference's JSON form of ScVal (`{ "u64": "5" }`, `{ "symbol": "x" }`, `{ "vec": [...] }`…) into XDR.
import { Address, xdr } from '@stellar/stellar-base';
import { ValidationError } from '../../errors.ts';

const int = (v: unknown, at: string): bigint => {
  if ((typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v))) return BigInt(v);
  throw new ValidationError(`'${at}' must be an integer (a JSON number or a decimal string)`);
};

const inRange = (n: bigint, min: bigint, max: bigint, at: string, type: string): bigint => {
  if (n < min || n > max) throw new ValidationError(`'${at}' is out of range for ${type}`);
  return n;
};

const U64 = 2n ** 64n - 1n;
const I64 = 2n ** 63n;

/** `{ hi, lo }` (the reference's form) or a plain integer, as the 128-bit value. */
function int128(v: unknown, at: string, signed: boolean): bigint {
  if (v !== null && typeof v === 'object' && 'hi' in v && 'lo' in v) {
    const hi = int((v as { hi: unknown }).hi, `${at}.hi`);
    const lo = inRange(int((v as { lo: unknown }).lo, `${at}.lo`), 0n, U64, `${at}.lo`, 'u64');
    return (hi << 64n) | lo;
  }
  const n = int(v, at);
  return signed ? inRange(n, -(2n ** 127n), 2n ** 127n - 1n, at, 'i128') : inRange(n, 0n, 2n ** 128n - 1n, at, 'u128');
}

function int256(v: unknown, at: string): bigint {
  if (v !== null && typeof v === 'object' && 'hi_hi' in v) {
    const p = v as Record<'hi_hi' | 'hi_lo' | 'lo_hi' | 'lo_lo', unknown>;
    return (int(p.hi_hi, at) << 192n) | (int(p.hi_lo, at) << 128n) | (int(p.lo_hi, at) << 64n) | int(p.lo_lo, at);
  }
  return int(v, at);
}

const lo64 = (n: bigint) => xdr.Uint64.fromString(BigInt.asUintN(64, n).toString());
const hi64 = (n: bigint, signed: boolean) =>
  signed
    ? xdr.Int64.fromString(BigInt.asIntN(64, n >> 64n).toString())
    : xdr.Uint64.fromString(BigInt.asUintN(64, n >> 64n).toString());

function parts256(n: bigint, signed: boolean) {
  const word = (shift: bigint) => xdr.Uint64.fromString(BigInt.asUintN(64, n >> shift).toString());
  const hiHi = signed ? xdr.Int64.fromString(BigInt.asIntN(64, n >> 192n).toString()) : word(192n);
  return { hiHi, hiLo: word(128n), loHi: word(64n), loLo: word(0n) } as never;
}

const CONVERTERS: Record<string, (v: unknown, at: string) => xdr.ScVal> = {
  bool: (v, at) => {
    if (typeof v !== 'boolean') throw new ValidationError(`'${at}' must be true or false`);
    return xdr.ScVal.scvBool(v);
  },
  void: () => xdr.ScVal.scvVoid(),
  u32: (v, at) => xdr.ScVal.scvU32(Number(inRange(int(v, at), 0n, 2n ** 32n - 1n, at, 'u32'))),
  i32: (v, at) => xdr.ScVal.scvI32(Number(inRange(int(v, at), -(2n ** 31n), 2n ** 31n - 1n, at, 'i32'))),
  u64: (v, at) => xdr.ScVal.scvU64(xdr.Uint64.fromString(inRange(int(v, at), 0n, U64, at, 'u64').toString())),
  i64: (v, at) => xdr.ScVal.scvI64(xdr.Int64.fromString(inRange(int(v, at), -I64, I64 - 1n, at, 'i64').toString())),
  timepoint: (v, at) =>
    xdr.ScVal.scvTimepoint(xdr.Uint64.fromString(inRange(int(v, at), 0n, U64, at, 'timepoint').toString())),
  duration: (v, at) =>
    xdr.ScVal.scvDuration(xdr.Uint64.fromString(inRange(int(v, at), 0n, U64, at, 'duration').toString())),
  u128: (v, at) => {
    const n = int128(v, at, false);
    return xdr.ScVal.scvU128(new xdr.UInt128Parts({ hi: hi64(n, false) as xdr.Uint64, lo: lo64(n) }));
  },
  i128: (v, at) => {
    const n = int128(v, at, true);
    return xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: hi64(n, true) as xdr.Int64, lo: lo64(n) }));
  },
  u256: (v, at) => xdr.ScVal.scvU256(new xdr.UInt256Parts(parts256(int256(v, at), false))),
  i256: (v, at) => xdr.ScVal.scvI256(new xdr.Int256Parts(parts256(int256(v, at), true))),
  bytes: (v, at) => {
    if (typeof v !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(v)) throw new ValidationError(`'${at}' must be hex`);
    return xdr.ScVal.scvBytes(Buffer.from(v, 'hex'));
  },
  string: (v, at) => {
    if (typeof v !== 'string') throw new ValidationError(`'${at}' must be a string`);
    return xdr.ScVal.scvString(v);
  },
  symbol: (v, at) => {
    if (typeof v !== 'string' || !/^[A-Za-z0-9_]{0,32}$/.test(v))
      throw new ValidationError(`'${at}' must be a symbol: up to 32 letters, digits or '_'`);
    return xdr.ScVal.scvSymbol(v);
  },
  address: (v, at) => {
    try {
      return Address.fromString(v as string).toScVal();
    } catch {
      throw new ValidationError(`'${at}' must be a Stellar account (G…) or contract (C…) address`);
    }
  },
  vec: (v, at) => {
    if (!Array.isArray(v)) throw new ValidationError(`'${at}' must be an array of values`);
    return xdr.ScVal.scvVec(v.map((item, i) => toScVal(item, `${at}.${i}`)));
  },
  map: (v, at) => {
    if (!Array.isArray(v)) throw new ValidationError(`'${at}' must be an array of { "key", "val" } entries`);
    return xdr.ScVal.scvMap(
      v.map(
        (e: { key?: unknown; val?: unknown }, i) =>
          new xdr.ScMapEntry({ key: toScVal(e?.key, `${at}.${i}.key`), val: toScVal(e?.val, `${at}.${i}.val`) }),
      ),
    );
  },
};

/** One argument: an object with exactly one key naming its type (`"void"` alone is accepted too). */
export function toScVal(value: unknown, at: string): xdr.ScVal {
  if (value === 'void') return xdr.ScVal.scvVoid();
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length !== 1) {
    throw new ValidationError(
      `'${at}' must be an object with one key naming its type (${Object.keys(CONVERTERS).join(', ')})`,
    );
  }
  const [type, inner] = Object.entries(value)[0]!;
  const convert = CONVERTERS[type];
  if (!convert)
    throw new ValidationError(
      `'${at}': unsupported argument type '${type}' (supported: ${Object.keys(CONVERTERS).join(', ')})`,
    );
  return convert(inner, `${at}.${type}`);
}
