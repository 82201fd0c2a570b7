// SPL tokens for the relayer's fee payments, over Solana's official program client (@solana-program/token):
// token accounts and mints decoded (Token and Token-2022 share the first bytes of both), associated token
// addresses, and the TransferChecked (with the recipient's account created first when missing) the fee needs.
import { AccountRole, createNoopSigner, getBase64Decoder, type Address, type Instruction } from '@solana/kit';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  AccountState,
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintDecoder,
  getMintSize,
  getTokenDecoder,
  getTokenSize,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import type { SolanaInstructionSpec, SplMint, SplTokenAccount } from '../../domain/chains/solana/ports.ts';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM: string = ASSOCIATED_TOKEN_PROGRAM_ADDRESS;
/** Bytes of a token account without extensions (its rent-exempt size). */
const TOKEN_ACCOUNT_SIZE = getTokenSize();

export const isTokenProgram = (program: string): boolean =>
  program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM;

const tokenDecoder = getTokenDecoder();
const mintDecoder = getMintDecoder();
const base64 = getBase64Decoder();

/** An account's data as the node gave it; null when it is not a token account of a token program. */
export function decodeTokenAccount(address: string, owner: string, data: Uint8Array): SplTokenAccount | null {
  if (!isTokenProgram(owner) || data.length < TOKEN_ACCOUNT_SIZE) return null;
  const token = tokenDecoder.decode(data.subarray(0, TOKEN_ACCOUNT_SIZE));
  if (token.state === AccountState.Uninitialized) return null;
  return {
    address,
    mint: token.mint,
    owner: token.owner,
    amount: token.amount,
    frozen: token.state === AccountState.Frozen,
    program: owner,
  };
}

export function decodeMint(address: string, owner: string, data: Uint8Array): SplMint | null {
  if (!isTokenProgram(owner) || data.length < getMintSize()) return null;
  const mint = mintDecoder.decode(data.subarray(0, getMintSize()));
  return mint.isInitialized ? { address, decimals: mint.decimals, program: owner } : null;
}

export async function associatedTokenAddress(owner: string, mint: SplMint): Promise<string> {
  const [ata] = await findAssociatedTokenPda({
    owner: owner as Address,
    mint: mint.address as Address,
    tokenProgram: mint.program as Address,
  });
  return ata;
}

const SIGNER_ROLES = new Set([AccountRole.READONLY_SIGNER, AccountRole.WRITABLE_SIGNER]);
const WRITABLE_ROLES = new Set([AccountRole.WRITABLE, AccountRole.WRITABLE_SIGNER]);

/** A kit instruction in the reference's `instructions` form (base64 data). */
function toSpec(ix: Instruction): SolanaInstructionSpec {
  return {
    program_id: ix.programAddress,
    accounts: (ix.accounts ?? []).map((a) => ({
      pubkey: a.address,
      is_signer: SIGNER_ROLES.has(a.role),
      is_writable: WRITABLE_ROLES.has(a.role),
    })),
    data: base64.decode(ix.data ?? new Uint8Array()),
  };
}

/** TransferChecked from `owner`'s associated account to `recipient`'s, after creating it (idempotently, paid by `payer`) when asked. */
export async function splTransfer(args: {
  owner: string;
  recipient: string;
  mint: SplMint;
  amount: bigint;
  payer: string;
  createRecipient: boolean;
}): Promise<SolanaInstructionSpec[]> {
  const { owner, recipient, mint } = args;
  const [source, destination] = await Promise.all([
    associatedTokenAddress(owner, mint),
    associatedTokenAddress(recipient, mint),
  ]);
  const program = { programAddress: mint.program as Address };
  const out: Instruction[] = [];
  if (args.createRecipient) {
    out.push(
      getCreateAssociatedTokenIdempotentInstruction({
        payer: createNoopSigner(args.payer as Address),
        ata: destination as Address,
        owner: recipient as Address,
        mint: mint.address as Address,
        tokenProgram: mint.program as Address,
      }),
    );
  }
  out.push(
    getTransferCheckedInstruction(
      {
        source: source as Address,
        mint: mint.address as Address,
        destination: destination as Address,
        authority: createNoopSigner(owner as Address),
        amount: args.amount,
        decimals: mint.decimals,
      },
      program,
    ),
  );
  return out.map(toSpec);
}
