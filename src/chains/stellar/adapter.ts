// The Stellar chain adapter: the StellarChain port over Stellar RPC (getNetwork, getLedgerEntries, getFeeStats, sendTransaction, getTransaction…).
import { Asset, Keypair, xdr } from '@stellar/stellar-base';
import type { NetworkConfig } from '../../config/config.ts';
import { AppError } from '../../errors.ts';
import type {
  StellarAccount,
  StellarAssetSpec,
  StellarChain,
  StellarFeeStats,
  StellarSubmitOutcome,
  StellarTransactionStatus,
} from '../../domain/chains/stellar/ports.ts';
import { RPC_DEFAULTS, type FetchFor, type RpcObserver, type RpcSettings } from '../rpc-options.ts';
import { boundMessage, RpcFailure } from '../rpc-text.ts';
import { createSubmitter, type AnswerKind } from '../submit-all.ts';
import { parseEnvelope } from './build.ts';
import { createHorizonPaths } from './horizon.ts';
import { decodeResultXdr } from './results.ts';
import { createStellarRpc, StellarNodeError, type StellarRpc } from './rpc.ts';
import { createSigning } from './sign.ts';

export interface StellarChainOptions {
  rpc?: Partial<RpcSettings> | undefined;
  observer?: RpcObserver | undefined;
  fetchFor?: FetchFor | undefined;
}

/** The RPC answers with another passphrase than the config names: nothing may be signed for this network. */
export class NetworkPassphraseMismatchError extends AppError {
  constructor(network: string, configured: string, answered: string) {
    super('CHAIN_UNAVAILABLE', {
      reason: `network '${network}' is configured with passphrase '${configured}', but its RPC answers '${boundMessage(String(answered))}'`,
    });
  }
}

type FeeDistribution = Record<'min' | 'mode' | 'p50' | 'p90' | 'max', string>;
interface RawTransaction {
  status: string;
  ledger?: number;
  createdAt?: string;
  resultXdr?: string;
  latestLedger: number;
  oldestLedger: number;
  latestLedgerCloseTime?: string;
}

const distribution = (d: FeeDistribution) => ({
  min: BigInt(d.min),
  mode: BigInt(d.mode),
  p50: BigInt(d.p50),
  p90: BigInt(d.p90),
  max: BigInt(d.max),
});

async function account(
  rpc: StellarRpc,
  address: string,
  assets: StellarAssetSpec[] = [],
): Promise<StellarAccount | null> {
  const accountId = Keypair.fromPublicKey(address).xdrAccountId();
  const credit = assets.filter((a) => a.type !== 'native');
  const keys = [
    xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId })),
    ...credit.map((a) =>
      xdr.LedgerKey.trustline(
        new xdr.LedgerKeyTrustLine({ accountId, asset: new Asset(a.code, a.issuer).toTrustLineXDRObject() }),
      ),
    ),
  ].map((k) => k.toXDR('base64'));
  const { entries } = await rpc.read<{ entries: Array<{ key: string; xdr: string }> | null }>('getLedgerEntries', {
    keys,
  });
  const byKey = new Map((entries ?? []).map((e) => [e.key, xdr.LedgerEntryData.fromXDR(e.xdr, 'base64')]));
  const entry = byKey.get(keys[0]!);
  if (!entry) return null;
  const balances = credit.flatMap((asset, i) => {
    const line = byKey.get(keys[i + 1]!)?.trustLine();
    return line ? [{ asset, balance: BigInt(line.balance().toString()), limit: BigInt(line.limit().toString()) }] : [];
  });
  const acc = entry.account();
  return {
    accountId: address,
    sequence: BigInt(acc.seqNum().toString()),
    balance: BigInt(acc.balance().toString()),
    balances,
  };
}

type SendAnswer = { status: string; hash: string; latestLedger: number; errorResultXdr?: string };

/** What one node (or the failover over all of them) answered to one sendTransaction. */
async function submitVia(call: StellarRpc['call'], hash: string, envelope: string): Promise<StellarSubmitOutcome> {
  try {
    const r = await call<SendAnswer>('sendTransaction', { transaction: envelope });
    if (r.status === 'ERROR')
      return {
        status: 'ERROR',
        hash,
        latestLedger: r.latestLedger,
        result: decodeResultXdr(r.errorResultXdr),
        errorResultXdr: r.errorResultXdr ?? null,
      };
    if (r.status === 'PENDING' || r.status === 'DUPLICATE' || r.status === 'TRY_AGAIN_LATER')
      return { status: r.status, hash, latestLedger: r.latestLedger };
    return { status: 'unavailable', hash, message: `unknown sendTransaction status '${r.status}'` };
  } catch (err) {
    // The node refused the request itself (undecodable envelope): core's tx_malformed.
    if (err instanceof StellarNodeError)
      return {
        status: 'ERROR',
        hash,
        latestLedger: 0,
        result: { code: 'tx_malformed', innerCode: null, opCodes: [] },
        errorResultXdr: null,
      };
    if (err instanceof RpcFailure) return { status: 'unavailable', hash, message: err.message };
    throw err;
  }
}

const KINDS: Record<StellarSubmitOutcome['status'], AnswerKind> = {
  PENDING: 'new',
  DUPLICATE: 'known',
  ERROR: 'refused',
  TRY_AGAIN_LATER: 'busy',
  unavailable: 'unavailable',
};

/** sendTransaction through every URL that takes submissions (src/chains/submit-all.ts); remembers who accepted what. */
function createSubmit(rpc: StellarRpc, passphrase: string, checkNetwork: () => Promise<void>) {
  const submitter = createSubmitter(rpc.urls);
  return {
    async submit(envelope: string): Promise<StellarSubmitOutcome> {
      const hash = parseEnvelope(envelope, passphrase).hash().toString('hex');
      try {
        await checkNetwork();
      } catch (err) {
        return { status: 'unavailable', hash, message: (err as AppError).reason };
      }
      return submitter.submit(
        hash,
        (u) => submitVia(u ? u.call : rpc.call, hash, envelope),
        (o) => KINDS[o.status],
      );
    },
    submitDidNotLand: (hash: string) =>
      submitter.didNotLand(
        hash,
        async (u) => (await u.call<RawTransaction>('getTransaction', { hash })).status === 'NOT_FOUND',
        `accepted transaction ${hash} as pending, but the network never had it past its time bounds: submissions go to the other URLs`,
      ),
  };
}

async function transaction(rpc: StellarRpc, hash: string): Promise<StellarTransactionStatus> {
  const r = await rpc.read<RawTransaction>('getTransaction', { hash });
  if (r.status === 'NOT_FOUND') {
    const closed = Number(r.latestLedgerCloseTime);
    return {
      status: 'NOT_FOUND',
      hash,
      latestLedger: r.latestLedger,
      oldestLedger: r.oldestLedger,
      ...(Number.isSafeInteger(closed) && closed > 0 ? { latestLedgerCloseTime: closed } : {}),
    };
  }
  const result = decodeResultXdr(r.resultXdr);
  const landed = {
    hash,
    ledger: r.ledger!,
    createdAt: new Date(Number(r.createdAt) * 1000),
    resultXdr: r.resultXdr ?? '',
    feeCharged: 0n,
  };
  try {
    landed.feeCharged = BigInt(xdr.TransactionResult.fromXDR(landed.resultXdr, 'base64').feeCharged().toString());
  } catch {
    // Kept at 0: the status and codes still hold.
  }
  if (r.status === 'SUCCESS') return { status: 'SUCCESS', ...landed };
  return { status: 'FAILED', ...landed, result };
}

export function createStellarChain(network: NetworkConfig, options: StellarChainOptions = {}): StellarChain {
  const name = network.network;
  const passphrase = network.passphrase!;
  const rpc = createStellarRpc({
    network: name,
    urls: network.rpc_urls,
    ...RPC_DEFAULTS,
    ...options.rpc,
    observer: options.observer,
    fetchFor: options.fetchFor,
  });
  let networkChecked = false;
  const reads = {
    async checkNetwork() {
      if (networkChecked) return;
      const answer = await rpc.read<{ passphrase: string }>('getNetwork');
      if (answer.passphrase !== passphrase)
        throw new NetworkPassphraseMismatchError(name, passphrase, answer.passphrase);
      networkChecked = true;
    },
    account: (address: string, assets?: StellarAssetSpec[]) => account(rpc, address, assets),
    async feeStats(): Promise<StellarFeeStats> {
      const r = await rpc.read<{
        inclusionFee: FeeDistribution;
        sorobanInclusionFee: FeeDistribution;
        latestLedger: number;
      }>('getFeeStats');
      return {
        classic: distribution(r.inclusionFee),
        soroban: distribution(r.sorobanInclusionFee),
        latestLedger: r.latestLedger,
      };
    },
    latestLedger: () =>
      rpc
        .read<{ sequence: number; protocolVersion: number }>('getLatestLedger')
        .then((r) => ({ sequence: r.sequence, protocolVersion: r.protocolVersion })),
    async simulate(envelope: string) {
      const r = await rpc.read<{
        error?: string;
        transactionData?: string;
        minResourceFee?: string;
        results?: Array<{ auth?: string[] }>;
        latestLedger: number;
      }>('simulateTransaction', { transaction: envelope });
      if (r.error) return { ok: false as const, error: r.error, latestLedger: r.latestLedger };
      return {
        ok: true as const,
        minResourceFee: BigInt(r.minResourceFee ?? '0'),
        transactionData: r.transactionData ?? '',
        auth: r.results?.[0]?.auth ?? [],
        latestLedger: r.latestLedger,
      };
    },
  };
  return {
    network: name,
    passphrase,
    ...reads,
    ...createSubmit(rpc, passphrase, reads.checkNetwork),
    transaction: (hash) => transaction(rpc, hash),
    ...createSigning({ passphrase, reads, feeCacheMs: network.average_blocktime_ms ?? 5_000 }),
    strictSendPath: createHorizonPaths(network, options.fetchFor),
    async rawRequest(method, params) {
      const answer = await rpc.raw(method, params);
      return answer.error ? { error: answer.error } : { result: answer.result ?? null };
    },
    health: rpc.health,
  };
}
