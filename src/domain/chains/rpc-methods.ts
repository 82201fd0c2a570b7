// Which JSON-RPC methods the relayer's `rpc` route passes to its network: reads only. Writes go through the
// transaction routes, so every transaction the relayer's node sees is tracked, priced and nonce-managed.
import type { NetworkType } from '../types.ts';

const EVM_READS = [
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getProof',
  'eth_getTransactionCount',
  'eth_getLogs',
  'eth_createAccessList',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionReceipt',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_syncing',
  'eth_protocolVersion',
  'net_version',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'web3_sha3',
];

const SOLANA_READS = [
  'getAccountInfo',
  'getBalance',
  'getBlock',
  'getBlockCommitment',
  'getBlockHeight',
  'getBlockProduction',
  'getBlockTime',
  'getBlocks',
  'getBlocksWithLimit',
  'getClusterNodes',
  'getEpochInfo',
  'getEpochSchedule',
  'getFeeForMessage',
  'getFirstAvailableBlock',
  'getGenesisHash',
  'getHealth',
  'getHighestSnapshotSlot',
  'getIdentity',
  'getInflationGovernor',
  'getInflationRate',
  'getInflationReward',
  'getLargestAccounts',
  'getLatestBlockhash',
  'getLeaderSchedule',
  'getMaxRetransmitSlot',
  'getMaxShredInsertSlot',
  'getMinimumBalanceForRentExemption',
  'getMultipleAccounts',
  'getProgramAccounts',
  'getRecentPerformanceSamples',
  'getRecentPrioritizationFees',
  'getSignatureStatuses',
  'getSignaturesForAddress',
  'getSlot',
  'getSlotLeader',
  'getSlotLeaders',
  'getStakeMinimumDelegation',
  'getSupply',
  'getTokenAccountBalance',
  'getTokenAccountsByDelegate',
  'getTokenAccountsByOwner',
  'getTokenLargestAccounts',
  'getTokenSupply',
  'getTransaction',
  'getTransactionCount',
  'getVersion',
  'getVoteAccounts',
  'isBlockhashValid',
  'minimumLedgerSlot',
  'simulateTransaction',
];

const STELLAR_READS = [
  'getHealth',
  'getNetwork',
  'getVersionInfo',
  'getLatestLedger',
  'getLedgers',
  'getLedgerEntries',
  'getFeeStats',
  'getTransaction',
  'getTransactions',
  'getEvents',
  'simulateTransaction',
];

export const RPC_READS: Record<NetworkType, ReadonlySet<string>> = {
  evm: new Set(EVM_READS),
  solana: new Set(SOLANA_READS),
  stellar: new Set(STELLAR_READS),
};

/** Methods that change state; named in the refusal so the caller knows where to go instead. */
const WRITE_HINTS: Record<NetworkType, ReadonlySet<string>> = {
  evm: new Set([
    'eth_sendRawTransaction',
    'eth_sendTransaction',
    'eth_sign',
    'eth_signTransaction',
    'eth_signTypedData_v4',
    'personal_sign',
  ]),
  solana: new Set(['sendTransaction', 'requestAirdrop']),
  stellar: new Set(['sendTransaction']),
};

const EXAMPLES: Record<NetworkType, string> = {
  evm: 'eth_blockNumber, eth_getBalance, eth_call',
  solana: 'getBalance, getLatestBlockhash, getAccountInfo',
  stellar: 'getLatestLedger, getLedgerEntries, getTransaction',
};

/** Why a method is not passed through, for the JSON-RPC error's description. */
export function refusal(networkType: NetworkType, method: string): string {
  if (WRITE_HINTS[networkType].has(method)) {
    return `method '${method}' is not passed through the relayer's rpc route: send transactions with POST /api/v1/relayers/{relayer_id}/transactions, and sign with the sign routes`;
  }
  return `method '${method}' is not available through the relayer's rpc route: only ${networkType} read methods are passed to the network (for example ${EXAMPLES[networkType]})`;
}
