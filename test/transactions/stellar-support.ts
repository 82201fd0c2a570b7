// Test tools for Stellar relaying on the SIMULATED network (test/support/stellar-rpc.ts: real XDR and signature checks,
// simulated ledgers): a config pointing a relayer at the simulator, a funded account, signature checks.
import { createHash } from 'node:crypto';
import { Keypair, TransactionBuilder, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-base';
import type { ConfigFile } from '../../src/config/config.ts';
import type { StellarSim } from '../support/stellar-rpc.ts';

/** A deterministic throwaway key per name (the same relayer address across restarts of a test). */
export const stellarKey = (name: string): Keypair =>
  Keypair.fromRawEd25519Seed(createHash('sha256').update(`relaybox stellar relay test: ${name}`).digest());

export interface StellarSetupOptions {
  webhook?: string;
  /** The relayer's policies (the reference's fields for the network type). */
  policies?: Record<string, unknown>;
  /** Stroops the relayer's account starts with (default 10,000 XLM); 0: not created. */
  fund?: bigint;
  ledgerMs?: number;
}

export function stellarSetup(
  sim: StellarSim,
  id: string,
  options: StellarSetupOptions = {},
): { config: Partial<ConfigFile>; address: string; key: Keypair } {
  const key = stellarKey(id);
  if (options.fund !== 0n && !sim.account(key.publicKey())) sim.fund(key.publicKey(), options.fund ?? 100_000_000_000n);
  const config: Partial<ConfigFile> = {
    networks: [
      {
        type: 'stellar',
        network: 'stellar-sim',
        passphrase: sim.passphrase,
        rpc_urls: [{ url: sim.url, weight: 100 }],
        average_blocktime_ms: options.ledgerMs ?? 50,
      },
    ],
    signers: [{ id: 'xlm-key', type: 'local', development: true, private_key: key.secret() }],
    relayers: [
      {
        id,
        name: 'Stellar relayer (simulated network)',
        network: 'stellar-sim',
        network_type: 'stellar',
        signer_id: 'xlm-key',
        ...(options.policies ? { policies: options.policies } : {}),
        ...(options.webhook ? { notification_id: 'hook' } : {}),
      },
    ],
    notifications: options.webhook ? [{ id: 'hook', type: 'webhook', url: options.webhook }] : [],
  };
  return { config, address: key.publicKey(), key };
}

/** The envelope parsed with the network's passphrase; `signedBy` checks an account's signature over its hash. */
export function parseSigned(
  xdr: string,
  passphrase: string,
): { tx: Transaction | FeeBumpTransaction; signedBy(address: string): boolean } {
  const tx = TransactionBuilder.fromXDR(xdr, passphrase);
  return {
    tx,
    signedBy(address) {
      const kp = Keypair.fromPublicKey(address);
      return tx.signatures.some(
        (s) => Buffer.compare(s.hint(), kp.signatureHint()) === 0 && kp.verify(tx.hash(), s.signature()),
      );
    },
  };
}

export const payment = (destination: string, amount: number | string) => ({
  type: 'payment',
  destination,
  amount,
  asset: { type: 'native' },
});
