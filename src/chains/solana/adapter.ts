// The Solana chain adapter: the SolanaChain port over kit's RPC and the failover pool, plus building and signing for the relayer.
import { getTransactionEncoder } from '@solana/kit';
import type {
  Address,
  Base64EncodedWireTransaction,
  Transaction,
  Blockhash,
  Signature,
  TransactionMessageBytesBase64,
} from '@solana/kit';
import type { NetworkConfig } from '../../config/config.ts';
import { AppError, ValidationError } from '../../errors.ts';
import type { RawRpcAnswer } from '../../domain/chains/ports.ts';
import type {
  SignedSolanaTransaction,
  SigningApproval,
  SolanaBlockhash,
  SolanaChain,
  SolanaCommitment,
  SolanaSendOutcome,
  SolanaSigner,
} from '../../domain/chains/solana/ports.ts';
import { RPC_DEFAULTS, type FetchFor, type RpcObserver, type RpcSettings } from '../rpc-options.ts';
import { failureText } from '../rpc-text.ts';
import { createSubmitter, type AnswerKind } from '../submit-all.ts';
import { classifySendError, parseTransactionError } from './errors.ts';
import { compileInstructions, parseInstructions } from './instructions.ts';
import { createSolanaRpc, type SolanaRpc } from './rpc.ts';
import { inspectTransaction } from './inspect.ts';
import { createSolanaDex } from './jupiter.ts';
import { associatedTokenAddress, decodeMint, decodeTokenAccount, splTransfer } from './spl.ts';
import { toKitInstructions } from './instructions.ts';
import {
  checkFeePayer,
  checkRelayerCanSign,
  decodeWireTransaction,
  messageBase64,
  messageFacts,
  signAsFeePayer,
  toBase58,
  toBase64,
  withBlockhash,
  type DecodedTransaction,
} from './wire.ts';

export interface SolanaChainOptions {
  rpc?: Partial<RpcSettings> | undefined;
  observer?: RpcObserver | undefined;
  fetchFor?: FetchFor | undefined;
  /** Jupiter's API (JUPITER_API_URL); the reference's public URL when unset. */
  jupiterUrl?: string | undefined;
}

function createRead(name: string) {
  // No `cause`: transport texts may name a URL, and URLs may carry an API key.
  const unavailable = (what: string, err: unknown) =>
    new AppError('CHAIN_UNAVAILABLE', { reason: `network '${name}': ${what} failed: ${failureText(err)}` });
  return async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw unavailable(what, err);
    }
  };
}

type Read = ReturnType<typeof createRead>;

type SolanaUrl = ReturnType<typeof createSolanaRpc>['urls'][number];

/** What one node (or the failover over all of them) answered to one sendTransaction. */
async function sendVia(rpc: SolanaRpc, wire: string, signature: string): Promise<SolanaSendOutcome> {
  try {
    // Preflight on: the node simulates first and refuses what would fail, with the reason (code -32002).
    await rpc
      .sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' })
      .send();
    return { status: 'submitted', signature, alreadyProcessed: false };
  } catch (err) {
    const refused = classifySendError(err);
    if (!refused) return { status: 'unavailable', signature, message: failureText(err) };
    if (refused.reason === 'already_processed') return { status: 'submitted', signature, alreadyProcessed: true };
    return { status: 'rejected', signature, ...refused };
  }
}

const sendKind = (o: SolanaSendOutcome): AnswerKind =>
  o.status === 'submitted'
    ? o.alreadyProcessed
      ? 'known'
      : 'new'
    : o.status === 'rejected'
      ? 'refused'
      : 'unavailable';

/** sendTransaction through every URL that takes submissions (src/chains/submit-all.ts); remembers who accepted what. */
function createSender(rpc: SolanaRpc, urls: readonly SolanaUrl[]) {
  const submitter = createSubmitter(urls);
  return {
    async send(wire: string): Promise<SolanaSendOutcome> {
      const decoded = decodeWireTransaction(wire);
      const first = decoded.transaction.signatures[decoded.feePayer as Address];
      if (!first) throw new ValidationError('the transaction is not signed by its fee payer');
      const signature = toBase58(first);
      return submitter.submit(signature, (u) => sendVia(u ? u.rpc : rpc, wire, signature), sendKind);
    },
    sendDidNotLand: (signature: string) =>
      submitter.didNotLand(
        signature,
        async (u) =>
          (await u.rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send())
            .value[0] === null,
        `accepted transaction ${signature} as new, but the network never had it past its blockhash's life: submissions go to the other URLs`,
      ),
  };
}

function reads(
  rpc: SolanaRpc,
  read: Read,
): Pick<
  SolanaChain,
  | 'balance'
  | 'latestBlockhash'
  | 'isBlockhashValid'
  | 'feeForMessage'
  | 'simulate'
  | 'signatureStatuses'
  | 'blockHeight'
> {
  const latestBlockhash = async (commitment: SolanaCommitment = 'confirmed'): Promise<SolanaBlockhash> => {
    const { value } = await read('getLatestBlockhash', () => rpc.getLatestBlockhash({ commitment }).send());
    return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight };
  };
  return {
    balance: async (address) =>
      (await read('getBalance', () => rpc.getBalance(address as Address, { commitment: 'confirmed' }).send())).value,
    latestBlockhash,
    isBlockhashValid: async (blockhash) =>
      (
        await read('isBlockhashValid', () =>
          rpc.isBlockhashValid(blockhash as Blockhash, { commitment: 'processed' }).send(),
        )
      ).value,
    async feeForMessage(message) {
      const { value } = await read('getFeeForMessage', () =>
        rpc.getFeeForMessage(message as TransactionMessageBytesBase64, { commitment: 'processed' }).send(),
      );
      return value === null ? null : BigInt(value);
    },
    async simulate(wire) {
      const { value } = await read('simulateTransaction', () =>
        rpc
          .simulateTransaction(wire as Base64EncodedWireTransaction, {
            encoding: 'base64',
            sigVerify: false,
            replaceRecentBlockhash: false,
            commitment: 'confirmed',
          })
          .send(),
      );
      return {
        err: parseTransactionError(value.err),
        logs: [...(value.logs ?? [])],
        unitsConsumed: value.unitsConsumed ?? null,
      };
    },
    async signatureStatuses(signatures) {
      const { value } = await read('getSignatureStatuses', () =>
        rpc.getSignatureStatuses(signatures as Signature[], { searchTransactionHistory: true }).send(),
      );
      return value.map((s, i) =>
        s === null
          ? null
          : {
              signature: signatures[i]!,
              slot: s.slot,
              confirmations: s.confirmations === null ? null : Number(s.confirmations),
              // A status without confirmationStatus comes from old nodes: confirmations null means rooted.
              commitment: s.confirmationStatus ?? (s.confirmations === null ? 'finalized' : 'processed'),
              err: parseTransactionError(s.err),
            },
      );
    },
    blockHeight: (commitment = 'confirmed') => read('getBlockHeight', () => rpc.getBlockHeight({ commitment }).send()),
  };
}

/** SPL token reads for fee payments in tokens: accounts and mints as the node holds them at `confirmed`. */
function tokenReads(rpc: SolanaRpc, read: Read): Pick<SolanaChain, 'tokenAccount' | 'mint' | 'rentExemption'> {
  const account = async (address: string) => {
    const { value } = await read('getAccountInfo', () =>
      rpc.getAccountInfo(address as Address, { encoding: 'base64', commitment: 'confirmed' }).send(),
    );
    return value ? { owner: value.owner as string, data: new Uint8Array(Buffer.from(value.data[0], 'base64')) } : null;
  };
  return {
    async tokenAccount(address) {
      const found = await account(address);
      return found ? decodeTokenAccount(address, found.owner, found.data) : null;
    },
    async mint(address) {
      const found = await account(address);
      return found ? decodeMint(address, found.owner, found.data) : null;
    },
    rentExemption: (bytes) =>
      read('getMinimumBalanceForRentExemption', () =>
        rpc.getMinimumBalanceForRentExemption(BigInt(bytes), { commitment: 'confirmed' }).send(),
      ),
  };
}

/**
 * The latest blockhash, reused for BLOCKHASH_REUSE_MS: a blockhash stays valid for 150 blocks (about a minute), so a
 * second-old one costs nothing, and a burst of sends then needs no read each. Re-signing after an expiry asks afresh.
 */
const BLOCKHASH_REUSE_MS = 1_000;

function cachedBlockhash(read: () => Promise<SolanaBlockhash>): () => Promise<SolanaBlockhash> {
  let cached: { at: number; value: Promise<SolanaBlockhash> } | undefined;
  return () => {
    if (cached && Date.now() - cached.at < BLOCKHASH_REUSE_MS) return cached.value;
    const entry = (cached = { at: Date.now(), value: read() });
    entry.value.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return entry.value;
  };
}

/** How long a message the relayer built is remembered (beyond any blockhash's life), and how long a build waits for a new blockhash. */
const ISSUED_MEMORY_MS = 180_000;
const NEW_BLOCKHASH_WAIT_MS = 5_000;
/** Builds again with a fresh blockhash after a simulation that did not know the first one. */
const STALE_BLOCKHASH_RETRIES = 2;

/**
 * Messages this process built, so it never hands out the same one twice: two identical requests in one blockhash's
 * time would otherwise be one transaction (same signature) on chain, landing once for two records.
 */
function createIssued() {
  const issued = new Map<string, number>();
  let prunedAt = 0;
  return (message: string): boolean => {
    const now = Date.now();
    if (now - prunedAt > 10_000) {
      prunedAt = now;
      // Insertion order is age order: the old ones are at the front.
      for (const [m, at] of issued) {
        if (now - at <= ISSUED_MEMORY_MS) break;
        issued.delete(m);
      }
    }
    if (issued.has(message)) return false;
    issued.set(message, now);
    return true;
  };
}

/** Building and signing: each needs the fee from the node, and building a recent blockhash. */
function signing(
  chain: Pick<SolanaChain, 'latestBlockhash' | 'feeForMessage'>,
): Pick<SolanaChain, 'signTransaction' | 'buildAndSign' | 'resign' | 'compose' | 'signComposed'> {
  const recentBlockhash = cachedBlockhash(() => chain.latestBlockhash());
  const claim = createIssued();
  /** The message's facts and fee, the signing gate's approval of them, and only then the signature. */
  const finish = async (
    decoded: Pick<DecodedTransaction, 'transaction' | 'feePayer'>,
    signer: SolanaSigner,
    blockhash: string,
    lastValid: bigint | null,
    resignable: boolean,
    approval: SigningApproval,
  ): Promise<SignedSolanaTransaction> => {
    // The port's types require an approval; a caller typed around them still signs nothing.
    if (typeof approval !== 'function')
      throw new AppError('INTERNAL', { reason: 'a Solana signature was asked for without the signing gate' });
    const fee = await chain.feeForMessage(messageBase64(decoded.transaction));
    // Signature slots have a fixed size: the unsigned wire is as long as the signed one.
    const bytes = getTransactionEncoder().encode(decoded.transaction);
    const facts = {
      feePayer: decoded.feePayer,
      blockhash,
      lastValidBlockHeight: lastValid,
      resignable,
      fee,
      ...messageFacts(decoded.transaction.messageBytes),
      size: bytes.length,
    };
    await approval({ ...facts, wire: toBase64(bytes) });
    const signed = await signAsFeePayer(decoded.transaction, decoded.feePayer, signer);
    return { signature: signed.signature, transaction: signed.wire, ...facts };
  };
  /** Compiles with a recent blockhash; a message already handed out waits for the next blockhash. */
  const unique = async (compile: (blockhash: SolanaBlockhash) => Transaction, first: SolanaBlockhash) => {
    const deadline = Date.now() + NEW_BLOCKHASH_WAIT_MS;
    for (let blockhash = first; ; blockhash = await chain.latestBlockhash()) {
      const transaction = compile(blockhash);
      if (claim(messageBase64(transaction))) return { transaction, blockhash };
      if (Date.now() > deadline)
        throw new AppError('CHAIN_UNAVAILABLE', {
          reason:
            'the network has not produced a new blockhash; an identical transaction was just built with the current one',
        });
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /**
   * A message with a blockhash the relayer chose, signed (the fee payer is the signer's). When the node's simulation
   * did not know that blockhash (a node behind its peers, or one that expired meanwhile), built again with one read
   * fresh from the node, at most STALE_BLOCKHASH_RETRIES times (PreSignCheck in the domain's ports).
   */
  const withOwnBlockhash = async (
    compile: (blockhash: SolanaBlockhash) => Transaction,
    first: () => Promise<SolanaBlockhash>,
    signer: SolanaSigner,
    approval: SigningApproval,
  ): Promise<SignedSolanaTransaction> => {
    for (let attempt = 0; ; attempt++) {
      const { transaction, blockhash } = await unique(
        compile,
        attempt === 0 ? await first() : await chain.latestBlockhash(),
      );
      try {
        return await finish(
          { transaction, feePayer: signer.address },
          signer,
          blockhash.blockhash,
          blockhash.lastValidBlockHeight,
          true,
          approval,
        );
      } catch (err) {
        if (attempt >= STALE_BLOCKHASH_RETRIES || !(err as { staleBlockhash?: boolean }).staleBlockhash) throw err;
      }
    }
  };
  return {
    async signTransaction(wire, signer, approval) {
      const decoded = decodeWireTransaction(wire);
      const { onlySigner } = checkRelayerCanSign(decoded, signer.address);
      return finish(decoded, signer, decoded.blockhash, null, onlySigner, approval);
    },
    async buildAndSign(specs, signer, approval) {
      const instructions = parseInstructions(specs, signer.address);
      return withOwnBlockhash(
        (bh) => compileInstructions(instructions, signer.address, bh),
        recentBlockhash,
        signer,
        approval,
      );
    },
    async compose(specs, feePayer) {
      // A finalized blockhash, as the reference's prepareTransaction: the user signs after, and it must still be known then.
      const blockhash = await chain.latestBlockhash('finalized');
      const transaction = compileInstructions(toKitInstructions(specs), feePayer, blockhash);
      const fee = await chain.feeForMessage(messageBase64(transaction));
      const wire = toBase64(getTransactionEncoder().encode(transaction));
      return {
        transaction: wire,
        blockhash: blockhash.blockhash,
        lastValidBlockHeight: blockhash.lastValidBlockHeight,
        fee,
      };
    },
    async signComposed(wire, signer, approval) {
      const decoded = decodeWireTransaction(wire);
      checkFeePayer(decoded, signer.address);
      return finish(decoded, signer, decoded.blockhash, null, decoded.signers.length === 1, approval);
    },
    async resign(wire, signer, approval) {
      const decoded = decodeWireTransaction(wire);
      checkFeePayer(decoded, signer.address);
      if (decoded.signers.length > 1) {
        throw new ValidationError(
          `the transaction needs ${decoded.signers.length - 1} signature(s) besides the relayer's; it cannot be re-signed with a fresh blockhash`,
        );
      }
      return withOwnBlockhash(
        (bh) => withBlockhash(decoded, bh.blockhash),
        () => chain.latestBlockhash(),
        signer,
        approval,
      );
    },
  };
}

type JsonRaw = (source: string) => unknown;
const rawJson = (JSON as unknown as { rawJSON: JsonRaw }).rawJSON;

/**
 * kit's transport reads the integers of known methods' answers as bigints: those are written back
 * as the exact JSON integers the node sent (JSON.rawJSON), so a u64 above 2^53 passes through unrounded.
 */
function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : rawJson(value.toString());
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  return value;
}

async function rawRequest(
  name: string,
  raw: ReturnType<typeof createSolanaRpc>['raw'],
  method: string,
  params: unknown,
): Promise<RawRpcAnswer> {
  let answer: Awaited<ReturnType<typeof raw>>;
  try {
    answer = await raw(method, params);
  } catch (err) {
    throw new AppError('CHAIN_UNAVAILABLE', { reason: `network '${name}': ${method} failed: ${failureText(err)}` });
  }
  if (answer.error) {
    const { code, message, data } = answer.error;
    return { error: { code: Number(code), message, ...(data !== undefined ? { data: jsonSafe(data) } : {}) } };
  }
  return { result: jsonSafe(answer.result ?? null) };
}

export function createSolanaChain(network: NetworkConfig, options: SolanaChainOptions = {}): SolanaChain {
  const name = network.network;
  const { rpc, raw, health, urls } = createSolanaRpc({
    network: name,
    urls: network.rpc_urls,
    ...RPC_DEFAULTS,
    ...options.rpc,
    observer: options.observer,
    fetchFor: options.fetchFor,
  });
  const read = createRead(name);
  const base = reads(rpc, read);
  const sender = createSender(rpc, urls);
  return {
    network: name,
    ...base,
    ...tokenReads(rpc, read),
    inspect: inspectTransaction,
    associatedTokenAddress,
    splTransfer,
    dex: createSolanaDex(name, options.jupiterUrl),
    send: sender.send,
    sendDidNotLand: sender.sendDidNotLand,
    ...signing(base),
    rawRequest: (method, params) => rawRequest(name, raw, method, params),
    health,
  };
}
