// A wire transaction read for the relayer's fee-token policies, pure: each instruction's accounts with their roles,
// and what it does when it is a SOL transfer, an SPL Token transfer or an associated-token-account creation.
import { getCompiledTransactionMessageDecoder, type CompiledTransactionMessage } from '@solana/kit';
import type {
  InspectedSolanaTransaction,
  SolanaAccountRef,
  SolanaParsedInstruction,
} from '../../domain/chains/solana/ports.ts';
import { ValidationError } from '../../errors.ts';
import { decodeWireTransaction, toBase64 } from './wire.ts';
import { ASSOCIATED_TOKEN_PROGRAM, isTokenProgram, SYSTEM_PROGRAM } from './spl.ts';

const messageDecoder = getCompiledTransactionMessageDecoder();
type Compiled = CompiledTransactionMessage & {
  instructions: Array<{ programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }>;
};

/** The role of static account `i` from the header: signers first (writable ones before), then the rest (writable before). */
function roleOf(message: Compiled, i: number): { signer: boolean; writable: boolean } {
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  const total = message.staticAccounts.length;
  if (i < numSignerAccounts) return { signer: true, writable: i < numSignerAccounts - numReadonlySignerAccounts };
  return { signer: false, writable: i < total - numReadonlyNonSignerAccounts };
}

const u64 = (data: Uint8Array, at: number) => Buffer.from(data).readBigUInt64LE(at);

function parse(program: string, accounts: SolanaAccountRef[], data: Uint8Array): SolanaParsedInstruction {
  const a = (i: number) => accounts[i]?.address;
  // System Program Transfer: u32 LE 2, then lamports (u64 LE); accounts: from, to.
  if (program === SYSTEM_PROGRAM && data.length === 12 && Buffer.from(data).readUInt32LE(0) === 2 && a(1)) {
    return { type: 'system_transfer', from: a(0)!, to: a(1)!, lamports: u64(data, 4) };
  }
  if (isTokenProgram(program)) {
    // Transfer (3): source, destination, authority. TransferChecked (12): source, mint, destination, authority, then decimals.
    if (data[0] === 3 && data.length >= 9 && a(2))
      return {
        type: 'token_transfer',
        source: a(0)!,
        destination: a(1)!,
        authority: a(2)!,
        amount: u64(data, 1),
        mint: null,
        decimals: null,
      };
    if (data[0] === 12 && data.length >= 10 && a(3))
      return {
        type: 'token_transfer',
        source: a(0)!,
        destination: a(2)!,
        authority: a(3)!,
        amount: u64(data, 1),
        mint: a(1)!,
        decimals: data[9]!,
      };
  }
  // Create (empty data or 0) and CreateIdempotent (1): payer, account, owner, mint, system program, token program.
  if (
    program === ASSOCIATED_TOKEN_PROGRAM &&
    (data.length === 0 || ((data[0] === 0 || data[0] === 1) && data.length === 1)) &&
    a(3)
  ) {
    return { type: 'create_ata', payer: a(0)!, ata: a(1)!, owner: a(2)!, mint: a(3)! };
  }
  return { type: 'other' };
}

export function inspectTransaction(wire: string): InspectedSolanaTransaction {
  const decoded = decodeWireTransaction(wire);
  const message = messageDecoder.decode(decoded.transaction.messageBytes) as Compiled;
  if (!('instructions' in message))
    throw new ValidationError(
      `'transaction': message version ${String((message as { version?: unknown }).version)} is not supported; send a legacy or v0 message`,
    );
  const statics = message.staticAccounts as string[];
  const lookups = 'addressTableLookups' in message ? (message.addressTableLookups ?? []) : [];
  const lookupAccounts = lookups.reduce((n, l) => n + l.readonlyIndexes.length + l.writableIndexes.length, 0);
  // Accounts loaded from lookup tables have no address here: they are named by their index.
  const ref = (i: number): SolanaAccountRef =>
    i < statics.length
      ? { address: statics[i]!, ...roleOf(message, i) }
      : { address: `lookup:${i}`, signer: false, writable: true };
  const instructions = message.instructions.map((ix) => {
    const program = statics[ix.programAddressIndex] ?? `lookup:${ix.programAddressIndex}`;
    const accounts = (ix.accountIndices ?? []).map(ref);
    const data = new Uint8Array(ix.data ?? new Uint8Array());
    const spec = {
      program_id: program,
      accounts: accounts.map((x) => ({ pubkey: x.address, is_signer: x.signer, is_writable: x.writable })),
      data: toBase64(data),
    };
    return { program, accounts, parsed: parse(program, accounts, data), spec };
  });
  return {
    feePayer: decoded.feePayer,
    signers: decoded.signers,
    blockhash: decoded.blockhash,
    instructions,
    accounts: statics,
    programs: [...new Set(instructions.map((i) => i.program))],
    lookupAccounts,
    size: Buffer.byteLength(wire, 'base64'),
    message: toBase64(decoded.transaction.messageBytes),
  };
}
