// Test tools for Solana relaying on the SIMULATED network (test/support/solana-rpc.ts): a config pointing a relayer at
// the simulator, System Program transfers in the reference's instructions form, a transaction another key co-signs.
import { createHash } from 'node:crypto';
import {
  AccountRole,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import type { ConfigFile } from '../../src/config/config.ts';
import type { SolanaInstructionSpec } from '../../src/domain/chains/solana/ports.ts';
import { resolveSigner } from '../../src/signers/local/resolve.ts';
import type { Ed25519Signer } from '../../src/domain/signers/ports.ts';
import type { SolanaSim } from '../support/solana-rpc.ts';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** A deterministic throwaway key per name (the same relayer address across restarts of a test). */
export function solanaKey(name: string): { hex: string; signer: Ed25519Signer } {
  const hex = createHash('sha256').update(`relaybox solana relay test: ${name}`).digest('hex');
  return { hex, signer: resolveSigner({ id: name, type: 'local', private_key: hex }, 'solana', {}).ed25519! };
}

export interface SolanaSetupOptions {
  webhook?: string;
  /**
   * The relayer's policies (the reference's fields for the network type), over `fee_payment_strategy: 'relayer'`:
   * these relayers pay the fees themselves (without the field, users would pay, the reference's default).
   */
  policies?: Record<string, unknown>;
  /** Lamports airdropped to the relayer (default 100 SOL). */
  fund?: bigint;
  slotMs?: number;
}

/** A config whose relayer `id` relays to the simulator, its key derived from `id`, its account funded. */
export function solanaSetup(
  sim: SolanaSim,
  id: string,
  options: SolanaSetupOptions = {},
): { config: Partial<ConfigFile>; address: string } {
  const key = solanaKey(id);
  sim.airdrop(key.signer.address, options.fund ?? 100_000_000_000n);
  const config: Partial<ConfigFile> = {
    networks: [
      {
        type: 'solana',
        network: 'solana-sim',
        rpc_urls: [{ url: sim.url, weight: 100 }],
        average_blocktime_ms: options.slotMs ?? 20,
      },
    ],
    signers: [{ id: 'sol-key', type: 'local', development: true, private_key: key.hex }],
    relayers: [
      {
        id,
        name: 'Solana relayer (simulated network)',
        network: 'solana-sim',
        network_type: 'solana',
        signer_id: 'sol-key',
        policies: { fee_payment_strategy: 'relayer', ...options.policies },
        ...(options.webhook ? { notification_id: 'hook' } : {}),
      },
    ],
    notifications: options.webhook ? [{ id: 'hook', type: 'webhook', url: options.webhook }] : [],
  };
  return { config, address: key.signer.address };
}

/** A System Program transfer in the reference's `instructions` form. */
export function transfer(from: string, to: string, lamports: bigint, fromSigns = true): SolanaInstructionSpec {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(lamports, 4);
  return {
    program_id: SYSTEM_PROGRAM,
    accounts: [
      { pubkey: from, is_signer: fromSigns, is_writable: true },
      { pubkey: to, is_signer: false, is_writable: true },
    ],
    data: data.toString('base64'),
  };
}

/**
 * A client-built wire transaction paid by the relayer: a transfer from another funded account, which has signed it;
 * the relayer's signature is still missing. Returns it and the other signer's address.
 */
export async function solanaPartlySigned(sim: SolanaSim, feePayer: string): Promise<{ wire: string; other: string }> {
  const other = solanaKey(`other ${Math.random()}`).signer;
  sim.airdrop(other.address, 1_000_000_000n);
  const spec = transfer(other.address, feePayer, 1_000n);
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(feePayer as Address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: sim.svm.latestBlockhash() as Blockhash, lastValidBlockHeight: 0n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: SYSTEM_PROGRAM as Address,
          accounts: [
            { address: other.address as Address, role: AccountRole.WRITABLE_SIGNER },
            { address: feePayer as Address, role: AccountRole.WRITABLE },
          ],
          data: new Uint8Array(getBase64Encoder().encode(spec.data)),
        },
        m,
      ),
  );
  const compiled = compileTransaction(message);
  const signature = (await other.sign(new Uint8Array(compiled.messageBytes))) as SignatureBytes;
  const signed: Transaction = { ...compiled, signatures: { ...compiled.signatures, [other.address]: signature } };
  return { wire: getBase64EncodedWireTransaction(signed), other: other.address };
}
