// A SIMULATED Solana network for tests: the real SVM (litesvm, in-process) behind a small JSON-RPC HTTP server.
//
// Runs for real: transaction decoding, Ed25519 signature checks, program execution and balances (litesvm's
// SVM), duplicate detection (AlreadyProcessed). Simulated here, honestly and on purpose: slots and block
// heights (one block per slot, advanced on a timer or on demand), the blockhash validity window (a blockhash
// is valid for `blockhashValidBlocks` blocks after its own, 150 on mainnet), commitment levels (processed at
// once, confirmed `confirmDepth` slots later, finalized `finalizeDepth` slots later; 1 and 32 on mainnet),
// and the fee for a message (5,000 lamports per signature, no priority fees). SPL token accounts can be written
// straight into the SVM (createMint, fundTokens), after which the real Token program moves them. Answers use the RPC's documented
// shapes: a refused preflight is code -32002 with `data.err` and `data.logs`, a bad signature -32003.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { LiteSVM } from 'litesvm';
import {
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports,
  type Address,
  type Transaction,
} from '@solana/kit';
import {
  AccountState,
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getMintEncoder,
  getTokenDecoder,
  getTokenEncoder,
} from '@solana-program/token';

const LAMPORTS_PER_SIGNATURE = 5_000n;

export interface SolanaSimOptions {
  /** Slot length on the timer; 0: slots advance only on demand (`advance`). */
  slotMs?: number;
  confirmDepth?: number;
  finalizeDepth?: number;
  blockhashValidBlocks?: number;
}

// litesvm's numeric error enums (internal.d.ts), in order: the RPC names errors by these names.
const TX_ERRORS =
  `AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ProgramCacheHitMaxLimit CommitCancelled`.split(
    ' ',
  );
const IX_ERRORS =
  `GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits BorshIoError`.split(
    ' ',
  );

type Failed = { err(): unknown; meta(): { logs(): string[]; computeUnitsConsumed(): bigint } };
const isFailed = (r: unknown): r is Failed => typeof (r as Failed).err === 'function';

/** litesvm's error object → the RPC's TransactionError JSON (`"BlockhashNotFound"`, `{ "InstructionError": [0, { "Custom": 1 }] }`). */
function rpcError(err: unknown): unknown {
  if (typeof err === 'number') return TX_ERRORS[err] ?? `Unknown(${err})`;
  const e = err as { index?: number; accountIndex?: number; err?: () => unknown };
  if (typeof e.err === 'function') {
    const inner = e.err() as number | { code?: number; msg?: string };
    const ix =
      typeof inner === 'number'
        ? IX_ERRORS[inner]
        : inner.code !== undefined
          ? { Custom: inner.code }
          : { BorshIoError: inner.msg };
    return { InstructionError: [e.index, ix] };
  }
  if (e.accountIndex !== undefined)
    return { [err!.constructor.name.replace('TransactionError', '')]: { account_index: e.accountIndex } };
  if (e.index !== undefined) return { DuplicateInstruction: e.index };
  return String(err);
}

// agave's Display texts for the errors tests meet; others fall back to the error's name.
const TEXTS: Record<string, string> = {
  BlockhashNotFound: 'Blockhash not found',
  AlreadyProcessed: 'This transaction has already been processed',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
};

function describe(err: unknown): string {
  if (typeof err === 'string') return TEXTS[err] ?? err;
  const [name, value] = Object.entries(err as object)[0]!;
  if (name !== 'InstructionError') return name;
  const [index, ix] = value as [number, unknown];
  const detail =
    typeof ix === 'string'
      ? ix
      : 'Custom' in (ix as object)
        ? `custom program error: 0x${(ix as { Custom: number }).Custom.toString(16)}`
        : JSON.stringify(ix);
  return `Error processing Instruction ${index}: ${detail}`;
}

interface Landed {
  slot: number;
  err: unknown;
}

class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

export interface SolanaSim {
  url: string;
  svm: LiteSVM;
  readonly slot: number;
  /** Closes `n` slots (each a block with a new blockhash). */
  advance(n?: number): void;
  /** Every blockhash handed out so far expires (the chain moves past their validity window). */
  expireBlockhashes(): void;
  airdrop(address: string, amount: bigint): void;
  balance(address: string): bigint;
  /**
   * SPL Token accounts written straight into the SVM (a mint with no authority; an owner's associated token
   * account holding `amount`): the Token program then moves them for real.
   */
  createMint(decimals: number): Promise<string>;
  fundTokens(owner: string, mint: string, amount: bigint): Promise<string>;
  /** Amount held by an SPL token account, or null when there is none. */
  tokenBalance(account: string): bigint | null;
  /** Requests received, by method. */
  readonly calls: Map<string, number>;
  close(): Promise<void>;
}

export async function startSolanaSim(options: SolanaSimOptions = {}): Promise<SolanaSim> {
  const confirmDepth = options.confirmDepth ?? 1;
  const finalizeDepth = options.finalizeDepth ?? 32;
  const validBlocks = options.blockhashValidBlocks ?? 150;
  // The blockhash check is ours (a validity window, not litesvm's single latest hash); signatures stay verified.
  const svm = new LiteSVM().withSigverify(true).withBlockhashCheck(false);
  const txDecoder = getTransactionDecoder();
  const messageDecoder = getCompiledTransactionMessageDecoder();
  const base64 = getBase64Encoder();
  const base58 = getBase58Decoder();
  let slot = 1;
  const blockhashes = new Map<string, number>([[svm.latestBlockhash(), slot]]);
  const bySlot = new Map<number, string>([[slot, svm.latestBlockhash()]]);
  const landed = new Map<string, Landed>();
  const calls = new Map<string, number>();

  const advance = (n = 1) => {
    for (let i = 0; i < n; i++) {
      slot += 1;
      svm.expireBlockhash();
      blockhashes.set(svm.latestBlockhash(), slot);
      bySlot.set(slot, svm.latestBlockhash());
    }
  };
  const timer = options.slotMs ? setInterval(() => advance(), options.slotMs) : undefined;
  timer?.unref();

  const valid = (hash: string) => {
    const at = blockhashes.get(hash);
    return at !== undefined && slot <= at + validBlocks;
  };
  const commitmentOf = (s: number) =>
    slot >= s + finalizeDepth ? 'finalized' : slot >= s + confirmDepth ? 'confirmed' : 'processed';
  const slotFor = (commitment?: string) =>
    Math.max(
      1,
      commitment === 'finalized' ? slot - finalizeDepth : commitment === 'processed' ? slot : slot - confirmDepth,
    );
  const context = () => ({ slot, apiVersion: '2.2.0' });
  const decode = (wire: string): Transaction => txDecoder.decode(new Uint8Array(base64.encode(wire)));

  function preflightFailure(err: unknown, logs: string[] = []) {
    return new RpcError(-32002, `Transaction simulation failed: ${describe(err)}`, {
      err,
      logs,
      accounts: null,
      unitsConsumed: 0,
      returnData: null,
    });
  }

  function sendTransaction(wire: string, config: { skipPreflight?: boolean } = {}) {
    const tx = decode(wire);
    const message = messageDecoder.decode(tx.messageBytes);
    const first = Object.values(tx.signatures)[0];
    if (!first) throw new RpcError(-32003, 'Transaction signature verification failure');
    const signature = base58.decode(first);
    if (landed.has(signature)) throw preflightFailure('AlreadyProcessed');
    if (!valid(message.lifetimeToken)) {
      if (config.skipPreflight) return signature; // a real node accepts it, and it never lands
      throw preflightFailure('BlockhashNotFound');
    }
    if (!config.skipPreflight) {
      const simulated = svm.simulateTransaction(tx);
      if (isFailed(simulated)) {
        const err = rpcError(simulated.err());
        if (err === 'SignatureFailure') throw new RpcError(-32003, 'Transaction signature verification failure');
        throw preflightFailure(err, simulated.meta().logs());
      }
    }
    const result = svm.sendTransaction(tx);
    landed.set(signature, { slot, err: isFailed(result) ? rpcError(result.err()) : null });
    return signature;
  }

  function signatureStatus(signature: string) {
    const tx = landed.get(signature);
    if (!tx) return null;
    const commitment = commitmentOf(tx.slot);
    return {
      slot: tx.slot,
      confirmations: commitment === 'finalized' ? null : slot - tx.slot,
      err: tx.err,
      status: tx.err === null ? { Ok: null } : { Err: tx.err },
      confirmationStatus: commitment,
    };
  }

  function simulate(wire: string, config: { sigVerify?: boolean } = {}) {
    const tx = decode(wire);
    const message = messageDecoder.decode(tx.messageBytes);
    if (!valid(message.lifetimeToken))
      return {
        context: context(),
        value: { err: 'BlockhashNotFound', logs: [], accounts: null, unitsConsumed: 0, returnData: null },
      };
    svm.withSigverify(config.sigVerify ?? false);
    try {
      const r = svm.simulateTransaction(tx);
      const meta = r.meta();
      return {
        context: context(),
        value: {
          err: isFailed(r) ? rpcError(r.err()) : null,
          logs: meta.logs(),
          accounts: null,
          unitsConsumed: Number(meta.computeUnitsConsumed()),
          returnData: null,
        },
      };
    } finally {
      svm.withSigverify(true);
    }
  }

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0-litesvm-simulated', 'feature-set': 0 }),
    getSlot: () => slot,
    getBlockHeight: ([config]) => slotFor((config as { commitment?: string } | undefined)?.commitment),
    getLatestBlockhash: ([config]) => {
      const at = slotFor((config as { commitment?: string } | undefined)?.commitment);
      return { context: context(), value: { blockhash: bySlot.get(at), lastValidBlockHeight: at + validBlocks } };
    },
    isBlockhashValid: ([hash]) => ({ context: context(), value: valid(hash as string) }),
    getBalance: ([address]) => ({ context: context(), value: Number(svm.getBalance(address as Address) ?? 0n) }),
    getAccountInfo: ([address]) => {
      const account = svm.getAccount(address as Address);
      if (!account.exists) return { context: context(), value: null };
      const data = Buffer.from(account.data).toString('base64');
      return {
        context: context(),
        value: {
          data: [data, 'base64'],
          executable: account.executable,
          lamports: Number(account.lamports),
          owner: account.programAddress,
          rentEpoch: 0,
          space: account.data.length,
        },
      };
    },
    getMinimumBalanceForRentExemption: ([size]) => Number(svm.minimumBalanceForRentExemption(BigInt(size as number))),
    getFeeForMessage: ([message]) => {
      const m = messageDecoder.decode(new Uint8Array(base64.encode(message as string)));
      return {
        context: context(),
        value: valid(m.lifetimeToken) ? Number(LAMPORTS_PER_SIGNATURE) * m.header.numSignerAccounts : null,
      };
    },
    simulateTransaction: ([wire, config]) => simulate(wire as string, config as { sigVerify?: boolean }),
    sendTransaction: ([wire, config]) => sendTransaction(wire as string, config as { skipPreflight?: boolean }),
    getSignatureStatuses: ([signatures]) => ({
      context: context(),
      value: (signatures as string[]).map(signatureStatus),
    }),
    requestAirdrop: ([address, amount]) => {
      const r = svm.airdrop(address as Address, lamports(BigInt(amount as number)));
      if (!r || isFailed(r)) throw new RpcError(-32603, 'airdrop failed');
      const signature = base58.decode(r.signature());
      landed.set(signature, { slot, err: null });
      return signature;
    },
  };

  async function answer(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: { id?: unknown; method?: string; params?: unknown[] };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    }
    const method = methods[body.method ?? ''];
    calls.set(body.method ?? '', (calls.get(body.method ?? '') ?? 0) + 1);
    if (!method) return { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } };
    try {
      return { jsonrpc: '2.0', id: body.id, result: method(body.params ?? []) };
    } catch (err) {
      if (err instanceof RpcError)
        return {
          jsonrpc: '2.0',
          id: body.id,
          error: { code: err.code, message: err.message, ...(err.data ? { data: err.data } : {}) },
        };
      return {
        jsonrpc: '2.0',
        id: body.id,
        error: { code: -32602, message: `invalid params: ${(err as Error).message}` },
      };
    }
  }

  const server: Server = createServer((req, res) => {
    answer(req).then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    svm,
    get slot() {
      return slot;
    },
    advance,
    expireBlockhashes: () => advance(validBlocks + 1),
    airdrop(address, amount) {
      methods.requestAirdrop!([address, Number(amount)]);
    },
    balance: (address) => svm.getBalance(address as Address) ?? 0n,
    async createMint(decimals) {
      const { address } = await generateKeyPairSigner();
      const data = new Uint8Array(
        getMintEncoder().encode({
          mintAuthority: null,
          supply: 10n ** 15n,
          decimals,
          isInitialized: true,
          freezeAuthority: null,
        }),
      );
      svm.setAccount({
        address,
        data,
        executable: false,
        lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(data.length))),
        programAddress: TOKEN_PROGRAM_ADDRESS,
        space: BigInt(data.length),
      });
      return address;
    },
    async fundTokens(owner, mint, amount) {
      const [ata] = await findAssociatedTokenPda({
        owner: owner as Address,
        mint: mint as Address,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      });
      const data = new Uint8Array(
        getTokenEncoder().encode({
          mint: mint as Address,
          owner: owner as Address,
          amount,
          delegate: null,
          state: AccountState.Initialized,
          isNative: null,
          delegatedAmount: 0,
          closeAuthority: null,
        }),
      );
      svm.setAccount({
        address: ata,
        data,
        executable: false,
        lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(data.length))),
        programAddress: TOKEN_PROGRAM_ADDRESS,
        space: BigInt(data.length),
      });
      return ata;
    },
    tokenBalance(account) {
      const found = svm.getAccount(account as Address);
      return found.exists ? getTokenDecoder().decode(found.data).amount : null;
    },
    calls,
    async close() {
      clearInterval(timer);
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
