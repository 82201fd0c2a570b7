// Every bound on what crosses out of the sandbox and back into it (documented in docs/plugins.md, "Limits").
import { KV_MAX_VALUE_BYTES } from '../domain/kv/rules.ts';
import type { RuntimeLimits } from '../../runtime/protocol.ts';

/** Every bound on what crosses out of the sandbox (documented in docs/plugins.md, "Limits"). */
export const RUNTIME_LIMITS: RuntimeLimits = Object.freeze({
  maxResultBytes: 1024 * 1024,
  maxLogLines: 200,
  maxLogBytes: 64 * 1024,
  maxLogLineBytes: 4096,
  maxApiCalls: 100,
  maxKvValueBytes: KV_MAX_VALUE_BYTES,
  maxKvKeyLength: 512,
  maxHostArgBytes: KV_MAX_VALUE_BYTES + 64 * 1024,
  maxHostArgBytesPerCall: 8 * 1024 * 1024,
  maxErrorMessageChars: 4096,
  maxErrorDetailsBytes: 64 * 1024,
  maxTraceEntryBytes: 16 * 1024,
  maxTraceBytes: 256 * 1024,
  maxTimers: 1000,
  maxFetchRequestBytes: 768 * 1024,
  maxFetchResponseBytes: 4 * 1024 * 1024,
  maxFetchBytesPerCall: 16 * 1024 * 1024,
  maxCryptoOps: 1000,
});
/** Bytes of one host call's reply handed back into the sandbox (a listKeys of 10,000 long keys fits). */
export const MAX_HOST_REPLY_BYTES = 8 * 1024 * 1024;
