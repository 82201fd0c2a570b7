// Room: runtime/isolate (runs inside the sandbox; see README.md here). No Node; trusts nothing the plugin may have touched.
// The code each sandbox context runs before any plugin code, assembled from its parts (runtime/isolate/prelude/):
// core (captured intrinsics, the message channel to the host, console, api, kv), guards (memory cap, no code
// outside the host's entries), timers, web basics, crypto, fetch, entries (init, run, deliver). Strict mode: `caller` never leads into it.
//
// Evaluated with `context.evalClosure(PRELUDE, [toHost, limits, memoryMb])`; returns `{ init, run, deliver }`:
// - `init(factory, seedHex)`: keys the context's random generator, evaluates the plugin module, returns the JSON text `{ hasHandler, reserved, settings }`.
// - `run(seq, inputJson, configJson, emitLogs, seedHex)`: starts call `seq` (with fresh randomness); its outcome leaves later as the message
//   `toHost('done', seq, kind, text, logsJson, reservedBytes)`.
// - `deliver(seq, id, replyJson)`: the reply to the host call the isolate asked for with `toHost('call', seq, id, op, argsJson)`.
// `toHost` is a host Reference held only in this closure's scope, never on a global.
import { CORE } from './prelude/core.ts';
import { ENTRIES } from './prelude/entries.ts';
import { GUARDS } from './prelude/guards.ts';
import { TIMERS } from './prelude/timers.ts';
import { WEB } from './prelude/web.ts';
import { CRYPTO } from './prelude/crypto.ts';
import { FETCH } from './prelude/fetch.ts';

export const PRELUDE = `'use strict';\n${CORE}\n${GUARDS}\n${TIMERS}\n${WEB}\n${CRYPTO}\n${FETCH}\n${ENTRIES}`;
