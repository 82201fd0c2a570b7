// The reference's `instructions` request form, pure: checked with its limits and texts, compiled into a message paid by the relayer.
import {
  AccountRole,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getBase64Encoder,
  isAddress,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
  type Transaction,
} from '@solana/kit';
import { ValidationError } from '../../errors.ts';
import type { SolanaBlockhash, SolanaInstructionSpec } from '../../domain/chains/solana/ports.ts';

// The reference's request limits (constants/solana_transaction.rs).
export const MAX_INSTRUCTIONS = 64;
export const MAX_ACCOUNTS_PER_INSTRUCTION = 64;
export const MAX_TOTAL_ACCOUNTS = 64;
export const MAX_INSTRUCTION_DATA_BYTES = 1232;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const base64 = getBase64Encoder();

function role(isSigner: boolean, isWritable: boolean): AccountRole {
  if (isSigner) return isWritable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
  return isWritable ? AccountRole.WRITABLE : AccountRole.READONLY;
}

function toInstruction(spec: SolanaInstructionSpec, idx: number, relayer: string, unique: Set<string>): Instruction {
  const programId = spec.program_id.trim();
  if (programId === '') throw new ValidationError(`Instruction ${idx}: program_id cannot be empty`);
  if (!isAddress(programId)) throw new ValidationError(`Instruction ${idx}: Invalid program_id '${programId}'`);
  unique.add(programId);
  if (spec.accounts.length > MAX_ACCOUNTS_PER_INSTRUCTION) {
    throw new ValidationError(
      `Instruction ${idx}: Too many accounts ${spec.accounts.length} exceeds maximum of ${MAX_ACCOUNTS_PER_INSTRUCTION}`,
    );
  }
  const accounts = spec.accounts.map((account, accIdx) => {
    const pubkey = account.pubkey.trim();
    if (pubkey === '') throw new ValidationError(`Instruction ${idx} account ${accIdx}: pubkey cannot be empty`);
    if (!isAddress(pubkey))
      throw new ValidationError(`Instruction ${idx} account ${accIdx}: Invalid pubkey '${pubkey}'`);
    // The relayer can only give its own signature.
    if (account.is_signer && pubkey !== relayer) {
      throw new ValidationError(
        `Instruction ${idx} account ${accIdx}: Only the relayer address ${relayer} can be marked as a signer, but '${pubkey}' is marked as a signer. The relayer can only provide its own signature.`,
      );
    }
    unique.add(pubkey);
    return { address: pubkey as Address, role: role(account.is_signer, account.is_writable) };
  });
  if (!BASE64.test(spec.data)) throw new ValidationError(`Instruction ${idx}: Invalid base64 data`);
  const data = new Uint8Array(base64.encode(spec.data));
  if (data.length > MAX_INSTRUCTION_DATA_BYTES)
    throw new ValidationError(
      `Instruction ${idx}: Data too large (${data.length} bytes, max: ${MAX_INSTRUCTION_DATA_BYTES} bytes)`,
    );
  return { programAddress: programId as Address, accounts, data };
}

/**
 * Checks the specs with the reference's rules and texts. Unlike the reference, the System Program
 * (`111…1`, the all-zero key) is accepted as a program id: refusing it makes plain SOL transfers impossible.
 */
export function parseInstructions(specs: SolanaInstructionSpec[], relayer: string): Instruction[] {
  if (specs.length === 0) throw new ValidationError('Instructions cannot be empty');
  if (specs.length > MAX_INSTRUCTIONS)
    throw new ValidationError(`Too many instructions: ${specs.length} exceeds maximum of ${MAX_INSTRUCTIONS}`);
  const unique = new Set<string>([relayer]);
  const instructions = specs.map((spec, idx) => toInstruction(spec, idx, relayer, unique));
  if (unique.size > MAX_TOTAL_ACCOUNTS)
    throw new ValidationError(
      `Too many unique accounts: ${unique.size} exceeds Solana's limit of ${MAX_TOTAL_ACCOUNTS}`,
    );
  return instructions;
}

/**
 * Instructions the relayer composed itself (a client's decoded instructions and its own fee transfer): taken as
 * they are, other signers included, since each signer still has to sign the result.
 */
export function toKitInstructions(specs: SolanaInstructionSpec[]): Instruction[] {
  return specs.map((spec) => ({
    programAddress: spec.program_id as Address,
    accounts: spec.accounts.map((a) => ({ address: a.pubkey as Address, role: role(a.is_signer, a.is_writable) })),
    data: new Uint8Array(base64.encode(spec.data)),
  }));
}

/** A legacy message (the reference builds legacy too) paid by the relayer, with the given blockhash; unsigned. */
export function compileInstructions(
  instructions: Instruction[],
  feePayer: string,
  blockhash: SolanaBlockhash,
): Transaction {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(feePayer as Address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash.blockhash as Blockhash, lastValidBlockHeight: blockhash.lastValidBlockHeight },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return compileTransaction(message);
}
