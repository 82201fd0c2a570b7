// What every signer adapter (src/signers/<type>/signer.ts) exports, and what it may use besides its config entry.
import type { SignerConfig } from '../config/config.ts';
import type { Signer } from '../domain/signers/ports.ts';
import type { NetworkType } from '../domain/types.ts';

/** The process environment: secrets a config entry names by `{type: env}` are read from it at start. */
export interface SignerContext {
  env: NodeJS.ProcessEnv;
}

/** Builds the signer of one config entry for a network type; rejects with an Error naming the signer and the cause. */
export type SignerFactory = (signer: SignerConfig, networkType: NetworkType, context: SignerContext) => Promise<Signer>;
