// Horizon's path finding (GET /paths/strict-send), the order book price source of sponsored transactions: the network's
// `horizon_url`, or by default the SDF's public Horizon for testnet or mainnet (the reference's defaults).
import { StrKey } from '@stellar/stellar-base';
import type { NetworkConfig } from '../../config/config.ts';
import { AppError } from '../../errors.ts';
import type { StellarAssetSpec, StellarPathQuote } from '../../domain/chains/stellar/ports.ts';
import { boundMessage, connectionFailure } from '../rpc-text.ts';

export const HORIZON_MAINNET_URL = 'https://horizon.stellar.org';
export const HORIZON_TESTNET_URL = 'https://horizon-testnet.stellar.org';
/** The reference's HTTP timeout for Horizon. */
const TIMEOUT_MS = 7_000;

interface PathRecord {
  source_amount: string;
  destination_amount: string;
  path: Array<{ asset_type: string; asset_code?: string; asset_issuer?: string }>;
}

/** Smallest units to Horizon's decimal string: 1234 with 7 decimals is "0.0001234". */
function toDecimal(units: bigint, decimals: number): string {
  if (decimals === 0) return units.toString();
  const s = units.toString().padStart(decimals + 1, '0');
  return `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
}

/** Horizon's decimal string to smallest units; digits beyond `decimals` are cut (never rounded up). */
function fromDecimal(amount: string, decimals: number): bigint {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(amount);
  if (!m) throw new Error(`'${boundMessage(amount)}' is not a decimal amount`);
  const frac = (m[2] ?? '').slice(0, decimals).padEnd(decimals, '0');
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac || '0');
}

const assetParams = (prefix: string, a: StellarAssetSpec): Record<string, string> =>
  a.type === 'native'
    ? { [`${prefix}_asset_type`]: 'native' }
    : { [`${prefix}_asset_type`]: a.type, [`${prefix}_asset_code`]: a.code, [`${prefix}_asset_issuer`]: a.issuer };
const canonical = (a: StellarAssetSpec) => (a.type === 'native' ? 'native' : `${a.code}:${a.issuer}`);

function pathAsset(p: PathRecord['path'][number]): StellarAssetSpec {
  if (p.asset_type === 'native') return { type: 'native' };
  if (
    (p.asset_type === 'credit_alphanum4' || p.asset_type === 'credit_alphanum12') &&
    p.asset_code &&
    p.asset_issuer &&
    StrKey.isValidEd25519PublicKey(p.asset_issuer)
  ) {
    return { type: p.asset_type, code: p.asset_code, issuer: p.asset_issuer };
  }
  throw new Error(`unexpected path asset ${boundMessage(JSON.stringify(p))}`);
}

const unavailable = (network: string, why: string) =>
  new AppError('CHAIN_UNAVAILABLE', { reason: `Horizon of network '${network}' (path finding): ${why}` });

export function createHorizonPaths(network: NetworkConfig, fetchFor?: (url: string) => typeof fetch | undefined) {
  const base = (network.horizon_url ?? (network.is_testnet ? HORIZON_TESTNET_URL : HORIZON_MAINNET_URL)).replace(
    /\/+$/,
    '',
  );
  // The URL as configured: the guard trusts the config file's own URLs.
  const doFetch = (network.horizon_url ? fetchFor?.(network.horizon_url) : fetchFor?.(base)) ?? fetch;

  async function get(query: Record<string, string>): Promise<PathRecord[]> {
    const url = `${base}/paths/strict-send?${new URLSearchParams(query)}`;
    let res: Response;
    try {
      res = await doFetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
    } catch (err) {
      throw unavailable(
        network.network,
        (err as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : connectionFailure(err),
      );
    }
    // Horizon's body is never repeated: horizon_url may point at a service whose answer is not for the caller.
    const text = await res.text();
    if (!res.ok) throw unavailable(network.network, `HTTP ${res.status} (check horizon_url)`);
    let records: unknown;
    try {
      records = (JSON.parse(text) as { _embedded?: { records?: PathRecord[] } })._embedded?.records;
    } catch {
      records = undefined;
    }
    if (!Array.isArray(records))
      throw unavailable(network.network, "an answer that is not Horizon's path records (check horizon_url)");
    return records as PathRecord[];
  }

  return async function strictSendPath(
    source: StellarAssetSpec,
    amount: bigint,
    destination: StellarAssetSpec,
    decimals: { source: number; destination: number },
  ): Promise<StellarPathQuote | null> {
    const records = await get({
      ...assetParams('source', source),
      source_amount: toDecimal(amount, decimals.source),
      destination_assets: canonical(destination),
    });
    // Horizon lists the paths best first (the most received).
    const best = records[0];
    if (!best) return null;
    try {
      return {
        sourceAmount: amount,
        destinationAmount: fromDecimal(best.destination_amount, decimals.destination),
        path: (best.path ?? []).map(pathAsset),
      };
    } catch (err) {
      throw unavailable(network.network, boundMessage((err as Error).message));
    }
  };
}
