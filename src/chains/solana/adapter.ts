// The Solana chain adapter: the SolanaChain port over kit's RPC and the failover pool, plus building and signing for the relayer.
import type { Address, Base64EncodedWireTransaction, Blockhash, Signature, TransactionMessageBytesBase64 } from '@solana/kit';
import type { NetworkConfig } from '../../config.ts';
import { AppError, ValidationError } from '../../errors.ts';
import type { SignedSolanaTransaction, SolanaBlockhash, SolanaChain, SolanaCommitment, SolanaSendOutcome, SolanaSigner } from '../../domain/chains/solana/ports.ts';
import type { RpcObserver } from '../evm/rpc-transport.ts';
import { RPC_POOL_DEFAULTS, type RpcPoolSettings } from '../rpc-pool.ts';
import { classifySendError, parseTransactionError } from './errors.ts';
import { compileInstructions, parseInstructions } from './instructions.ts';
import { createSolanaRpc, type SolanaRpc } from './rpc.ts';
import { checkFeePayer, checkRelayerCanSign, decodeWireTransaction, messageBase64, signAsFeePayer, toBase58, withBlockhash, type DecodedTransaction } from './wire.ts';

export interface SolanaChainOptions {
  rpc?: Partial<RpcPoolSettings> | undefined;
  observer?: RpcObserver | undefined;
}

function createRead(name: string) {
  // No `cause`: transport texts may name a URL, and URLs may carry an API key.
  const unavailable = (what: string, err: unknown) => new AppError('CHAIN_UNAVAILABLE', { reason: `network '${name}': ${what} failed: ${(err as Error).message}` });
  return async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw unavailable(what, err);
    }
  };
}

type Read = ReturnType<typeof createRead>;

async function send(rpc: SolanaRpc, wire: string): Promise<SolanaSendOutcome> {
  const decoded = decodeWireTransaction(wire);
  const first = decoded.transaction.signatures[decoded.feePayer as Address];
  if (!first) throw new ValidationError('the transaction is not signed by its fee payer');
  const signature = toBase58(first);
  try {
    // Preflight on: the node simulates first and refuses what would fail, with the reason (code -32002).
    await rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
    return { status: 'submitted', signature, alreadyProcessed: false };
  } catch (err) {
    const refused = classifySendError(err);
    if (!refused) return { status: 'unavailable', signature, message: (err as Error).message };
    if (refused.reason === 'already_processed') return { status: 'submitted', signature, alreadyProcessed: true };
    return { status: 'rejected', signature, ...refused };
  }
}

function reads(rpc: SolanaRpc, read: Read): Omit<SolanaChain, 'network' | 'send' | 'signTransaction' | 'buildAndSign' | 'resign' | 'health'> {
  const latestBlockhash = async (commitment: SolanaCommitment = 'confirmed'): Promise<SolanaBlockhash> => {
    const { value } = await read('getLatestBlockhash', () => rpc.getLatestBlockhash({ commitment }).send());
    return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight };
  };
  return {
    balance: async (address) => (await read('getBalance', () => rpc.getBalance(address as Address, { commitment: 'confirmed' }).send())).value,
    latestBlockhash,
    isBlockhashValid: async (blockhash) => (await read('isBlockhashValid', () => rpc.isBlockhashValid(blockhash as Blockhash, { commitment: 'processed' }).send())).value,
    async feeForMessage(message) {
      const { value } = await read('getFeeForMessage', () => rpc.getFeeForMessage(message as TransactionMessageBytesBase64, { commitment: 'processed' }).send());
      return value === null ? null : BigInt(value);
    },
    async simulate(wire) {
      const { value } = await read('simulateTransaction', () =>
        rpc.simulateTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', sigVerify: false, replaceRecentBlockhash: false, commitment: 'confirmed' }).send(),
      );
      return { err: parseTransactionError(value.err), logs: [...(value.logs ?? [])], unitsConsumed: value.unitsConsumed ?? null };
    },
    async signatureStatuses(signatures) {
      const { value } = await read('getSignatureStatuses', () => rpc.getSignatureStatuses(signatures as Signature[], { searchTransactionHistory: true }).send());
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

/** Building and signing: each needs the fee from the node, and building a fresh blockhash. */
function signing(chain: Pick<SolanaChain, 'latestBlockhash' | 'feeForMessage'>): Pick<SolanaChain, 'signTransaction' | 'buildAndSign' | 'resign'> {
  const finish = async (decoded: Pick<DecodedTransaction, 'transaction' | 'feePayer'>, signer: SolanaSigner, blockhash: string, lastValid: bigint | null, resignable: boolean): Promise<SignedSolanaTransaction> => {
    const [signed, fee] = await Promise.all([signAsFeePayer(decoded.transaction, decoded.feePayer, signer), chain.feeForMessage(messageBase64(decoded.transaction))]);
    return { signature: signed.signature, transaction: signed.wire, feePayer: decoded.feePayer, blockhash, lastValidBlockHeight: lastValid, resignable, fee };
  };
  return {
    async signTransaction(wire, signer) {
      const decoded = decodeWireTransaction(wire);
      const { onlySigner } = checkRelayerCanSign(decoded, signer.address);
      return finish(decoded, signer, decoded.blockhash, null, onlySigner);
    },
    async buildAndSign(specs, signer) {
      const instructions = parseInstructions(specs, signer.address);
      const blockhash = await chain.latestBlockhash();
      const transaction = compileInstructions(instructions, signer.address, blockhash);
      return finish({ transaction, feePayer: signer.address }, signer, blockhash.blockhash, blockhash.lastValidBlockHeight, true);
    },
    async resign(wire, signer) {
      const decoded = decodeWireTransaction(wire);
      checkFeePayer(decoded, signer.address);
      if (decoded.signers.length > 1) {
        throw new ValidationError(`the transaction needs ${decoded.signers.length - 1} signature(s) besides the relayer's; it cannot be re-signed with a fresh blockhash`);
      }
      const blockhash = await chain.latestBlockhash();
      return finish({ transaction: withBlockhash(decoded, blockhash.blockhash), feePayer: decoded.feePayer }, signer, blockhash.blockhash, blockhash.lastValidBlockHeight, true);
    },
  };
}

export function createSolanaChain(network: NetworkConfig, options: SolanaChainOptions = {}): SolanaChain {
  const name = network.network;
  const { rpc, health } = createSolanaRpc({ network: name, urls: network.rpc_urls, ...RPC_POOL_DEFAULTS, ...options.rpc, observer: options.observer });
  const base = reads(rpc, createRead(name));
  return {
    network: name,
    ...base,
    send: (wire) => send(rpc, wire),
    ...signing(base),
    health,
  };
}
