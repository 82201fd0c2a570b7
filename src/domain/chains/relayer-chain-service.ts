// The relayer chain use cases over validated input: balance and status, the rpc passthrough, and signing.
import { requireActive } from '../relayers/active-state.ts';
import { createChainReads, type AllChains, type ChainReadsDeps, type RelayerChains } from './reads.ts';
import type { EvmSignature, JsonRpcAnswer, RelayerBalance, RelayerStatus, SignedTransactionView } from './views.ts';
import type { RelayerRow, TransactionsRepo } from '../relayers/ports.ts';
import { createRelayerRpc, type RpcRequest } from './rpc-passthrough.ts';
import type { RelayerService } from '../relayers/service.ts';
import { createRelayerSigning, type SignTransactionInput, type TypedDataHashes } from '../signers/signing.ts';
import type { SolanaMethodDeps } from './solana/relayer-methods.ts';
import { feePolicy, userPays } from './solana/fee-policy.ts';
import { checkUserPayment } from './solana/user-fee.ts';

export interface RelayerChainService {
  status(relayer: RelayerRow): Promise<RelayerStatus>;
  balance(relayer: RelayerRow): Promise<RelayerBalance>;
  rpc(relayer: RelayerRow, request: RpcRequest): Promise<JsonRpcAnswer>;
  signData(relayer: RelayerRow, message: string): Promise<EvmSignature>;
  signTypedData(relayer: RelayerRow, request: TypedDataHashes): Promise<EvmSignature>;
  signTransaction(relayer: RelayerRow, input: SignTransactionInput): Promise<SignedTransactionView>;
}

/** The chain each relayer talks to: EVM through the relayer service (its custom_rpc_urls), the others by network. */
export function relayerChainsOf(relayers: RelayerService, all: AllChains): RelayerChains {
  return {
    evm: (relayer) => relayers.chain(relayer),
    solana: (relayer) => all.solana(relayer.network),
    stellar: (relayer) => all.stellar(relayer.network),
  };
}

export function createRelayerChainService(
  deps: { relayers: RelayerService; chains: AllChains; transactions: TransactionsRepo } & Pick<
    ChainReadsDeps,
    'lastBalanceCheck'
  > &
    Partial<Pick<SolanaMethodDeps, 'send'>>,
): RelayerChainService {
  const chains = relayerChainsOf(deps.relayers, deps.chains);
  const reads = createChainReads({ chains, transactions: deps.transactions, lastBalanceCheck: deps.lastBalanceCheck });
  const signing = createRelayerSigning(chains);
  const signer = (relayer: RelayerRow) => deps.relayers.signer(relayer.id);
  const rpc = createRelayerRpc({ chains, signing, signer, send: deps.send });
  return {
    status: (relayer) => reads.status(relayer),
    balance: (relayer) => reads.balance(relayer),
    async rpc(relayer, request) {
      requireActive(relayer);
      return rpc(relayer, request);
    },
    async signData(relayer, message) {
      requireActive(relayer);
      return signing.signData(relayer, signer(relayer), message);
    },
    async signTypedData(relayer, request) {
      requireActive(relayer);
      return signing.signTypedData(relayer, signer(relayer), request);
    },
    async signTransaction(relayer, input) {
      requireActive(relayer);
      // Where users pay fees in tokens, the transaction must pay the relayer before it signs (the reference's rule).
      if (input.kind === 'solana' && relayer.network_type === 'solana' && userPays(feePolicy(relayer))) {
        await checkUserPayment(
          { chain: chains.solana(relayer), relayer, policy: feePolicy(relayer) },
          input.transaction,
        );
      }
      return signing.signTransaction(relayer, signer(relayer), input);
    },
  };
}
