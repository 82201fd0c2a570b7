// Decoding revert data: Error(string), Panic(uint256), or a custom error we have no ABI for.
import { decodeErrorResult, type Hex } from 'viem';
import type { RevertReason } from '../../domain/chains/ports.ts';

// Solidity's panic codes (docs.soliditylang.org, "Panic via assert and Error via require").
const PANICS: Record<number, string> = {
  0x00: 'generic compiler panic',
  0x01: 'assert condition failed',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'invalid enum conversion',
  0x22: 'incorrectly encoded storage byte array',
  0x31: 'pop() on an empty array',
  0x32: 'array index out of bounds',
  0x41: 'too much memory allocated',
  0x51: 'call to a zero-initialized internal function',
};

/** `nodeMessage` describes a revert without data (e.g. "out of gas"). */
export function decodeRevert(
  data: Hex | undefined | null,
  nodeMessage = 'execution reverted without a reason',
): RevertReason {
  if (!data || data === '0x') return { kind: 'empty', message: nodeMessage, data: null };
  try {
    const decoded = decodeErrorResult({ abi: [], data });
    if (decoded.errorName === 'Error') return { kind: 'error', message: String(decoded.args[0]), data };
    if (decoded.errorName === 'Panic') {
      const code = Number(decoded.args[0]);
      return {
        kind: 'panic',
        message: `panic 0x${code.toString(16).padStart(2, '0')}: ${PANICS[code] ?? 'unknown panic code'}`,
        data,
      };
    }
  } catch {
    // Not Error/Panic (or malformed): reported as a custom error by its selector.
  }
  return { kind: 'custom', message: `custom error ${data.slice(0, 10)}`, data };
}
