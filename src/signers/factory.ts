// What every signer adapter (src/signers/<type>/signer.ts) exports, and what it may use besides its config entry.
import type { SignerConfig, SignerSettings } from '../config/config.ts';
import type { Signer } from '../domain/signers/ports.ts';
import type { NetworkType } from '../domain/types.ts';

export interface SignerContext {
  /** The process environment: secrets an entry names by `{type: env}` or `private_key_env` are read from it. */
  env: NodeJS.ProcessEnv;
  /** The config's SIGNER_TIMEOUT_MS and providers' endpoints (src/config/env.ts), never read from `env` here. */
  settings: SignerSettings;
}

/** Builds the signer of one config entry for a network type; rejects with an Error naming the signer and the cause. */
export type SignerFactory = (signer: SignerConfig, networkType: NetworkType, context: SignerContext) => Promise<Signer>;
