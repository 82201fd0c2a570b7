// One PKCS#11 library per module path for the whole process. pkcs11js (a native addon) is imported the first time a
// pkcs11 signer is resolved, so a deployment without one never loads it. A library is initialized once (C_Initialize
// is per process, and every signer on the same module shares it) and, at exit, its sessions are closed and it is
// finalized, so a hardware module does not keep our sessions open.
import { existsSync } from 'node:fs';
import type * as Pkcs11Js from 'pkcs11js';

export type Pkcs11Binding = typeof Pkcs11Js;

export interface Pkcs11Module {
  readonly path: string;
  readonly lib: Pkcs11Js.PKCS11;
  readonly binding: Pkcs11Binding;
  /** Open sessions, closed at process exit. */
  readonly sessions: Set<Buffer>;
}

const modules = new Map<string, Promise<Pkcs11Module>>();
/** The libraries loaded, for the exit hook (which cannot await the promises above). */
const loaded = new Set<Pkcs11Module>();
let exitHook = false;

/** The initialized library at `path`; rejects with the reason (no such file, not a PKCS#11 library, C_Initialize). */
export function loadModule(path: string): Promise<Pkcs11Module> {
  let known = modules.get(path);
  if (!known) {
    known = open(path);
    modules.set(path, known);
    // A failed load is not kept: a later resolve (another start in this process) tries again.
    known.catch(() => modules.delete(path));
  }
  return known;
}

async function open(path: string): Promise<Pkcs11Module> {
  if (!existsSync(path)) throw new Error(`PKCS#11 module ${path} does not exist`);
  const imported = (await import('pkcs11js')) as Pkcs11Binding & { default?: Pkcs11Binding };
  const binding = imported.default ?? imported;
  const lib = new binding.PKCS11();
  try {
    lib.load(path);
  } catch (err) {
    throw new Error(`PKCS#11 module ${path} could not be loaded: ${firstLine(err)}`);
  }
  try {
    lib.C_Initialize();
  } catch (err) {
    // Another library in this process (or an earlier load of this path) initialized it: the library state is shared.
    if (codeOf(err) !== binding.CKR_CRYPTOKI_ALREADY_INITIALIZED)
      throw new Error(`PKCS#11 module ${path}: C_Initialize failed: ${reason(err)}`);
  }
  if (!exitHook) {
    exitHook = true;
    process.once('exit', closeAll);
  }
  const mod: Pkcs11Module = { path, lib, binding, sessions: new Set() };
  loaded.add(mod);
  return mod;
}

/** 'exit' handlers run synchronously, and so do the library's calls. Errors at this point change nothing. */
function closeAll(): void {
  for (const mod of loaded) {
    for (const session of mod.sessions) {
      try {
        mod.lib.C_CloseSession(session);
      } catch {
        // already gone
      }
    }
    try {
      mod.lib.C_Finalize();
    } catch {
      // already finalized
    }
  }
}

/** The PKCS#11 return code of a pkcs11js error (0 when it is not one). */
export function codeOf(err: unknown): number {
  return (err as { name?: string; code?: number })?.name === 'Pkcs11Error' ? ((err as { code: number }).code ?? 0) : 0;
}

// The return codes an operator can act on, said in words; any other is given by its CKR_ name.
const HINTS: Record<string, string> = {
  CKR_PIN_INCORRECT: 'the PIN is wrong',
  CKR_PIN_LOCKED: 'the PIN is locked (too many wrong attempts)',
  CKR_PIN_EXPIRED: 'the PIN has expired',
  CKR_PIN_LEN_RANGE: 'the PIN has a length the token refuses',
  CKR_TOKEN_NOT_PRESENT: 'the token is not present',
  CKR_DEVICE_REMOVED: 'the token was removed',
  CKR_USER_PIN_NOT_INITIALIZED: "the token's user PIN is not initialized",
  CKR_MECHANISM_INVALID: 'the token does not offer this signing mechanism',
  CKR_KEY_FUNCTION_NOT_PERMITTED: 'the key may not sign (CKA_SIGN is false)',
};

/** One line for a pkcs11js error: a hint and the CKR_ name, never the native stack. */
export function reason(err: unknown): string {
  // Not the module's return code: pkcs11js's own refusal (a wrong argument), named by its class only.
  if ((err as { name?: string })?.name !== 'Pkcs11Error')
    return `the PKCS#11 binding failed (${(err as Error)?.name ?? 'error'})`;
  const name = (err as Error).message;
  return HINTS[name] ? `${HINTS[name]} (${name})` : name;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0]!;
}
