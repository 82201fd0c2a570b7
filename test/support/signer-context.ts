// An adapter's createSigner as a test calls it: with the environment an operator would set, from which the config's
// own parser (src/config/env.ts) makes the settings the service would hand the adapter.
import { signerSettings } from '../../src/config/config.ts';
import type { SignerFactory } from '../../src/signers/factory.ts';

export function fromEnv(factory: SignerFactory) {
  return (
    ...[signer, networkType, context]: [
      Parameters<SignerFactory>[0],
      Parameters<SignerFactory>[1],
      { env: NodeJS.ProcessEnv },
    ]
  ) => factory(signer, networkType, { env: context.env, settings: signerSettings(context.env) });
}
