// EVM addresses as the reference reads them (alloy's `Address::from_str`): 0x + 40 hex digits in any case, and a
// mixed-case address with a wrong EIP-55 checksum is accepted, not refused. Callers log that the checksum was wrong.
import { getAddress, isAddress, type Hex } from 'viem';

/** A mixed-case address whose EIP-55 checksum is wrong (all lower or all upper case carries no checksum). */
export function hasWrongChecksum(address: string): boolean {
  const digits = address.slice(2);
  return isAddress(address, { strict: false }) && /[a-f]/.test(digits) && /[A-F]/.test(digits) && !isAddress(address);
}

/** The address in its EIP-55 form, whatever case it came in. */
export function checksummed(address: string): Hex {
  return getAddress(address.toLowerCase());
}
