// Transaction ids are UUID version 7 (RFC 9562): 48 bits of Unix milliseconds first, then random bits. A store's
// indexes keyed by id (the transactions' primary key, the timeline's (transaction_id, version)) then take each new
// row at their right edge, so a batch of sends dirties a few pages instead of one random page per row and index
// (docs/performance.md, "Group commits"). The text form is the usual 36 characters, as opaque to clients as v4 was.
import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const bytes = new Uint8Array(16);
// Random bytes drawn 4 KiB at a time: one randomFillSync per id cost ~11 µs in the send path's profile.
const pool = new Uint8Array(4096);
let used = pool.length;

export function newTransactionId(nowMs = Date.now()): string {
  if (used + 10 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  bytes.set(pool.subarray(used, used + 10), 6);
  used += 10;
  let ms = nowMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  let out = '';
  for (let i = 0; i < 16; i++) out += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX[bytes[i]!];
  return out;
}
