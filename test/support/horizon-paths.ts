// A SIMULATED Horizon for tests: only its path-finding endpoints, GET /paths/strict-send and /paths/strict-receive,
// answering Horizon's documented shapes (`_embedded.records` of { source_asset_*, source_amount, destination_asset_*,
// destination_amount, path }, 400 problem+json naming the invalid field). Query parameters are checked as Horizon
// checks them. Simulated: the order book, one price per asset against XLM (set by the test, movable), no depth
// limit and no intermediate assets (every path is direct: `path: []`). No network is reached.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { StrKey } from '@stellar/stellar-base';

export interface HorizonSim {
  url: string;
  /** Sets `asset` (`CODE:ISSUER`) to trade at `tokenPerXlm` units of it per XLM (a decimal string, e.g. "0.15"). */
  setPrice(asset: string, tokenPerXlm: string): void;
  /** Every path request's path and query, in order. */
  readonly requests: Array<{ path: string; query: Record<string, string> }>;
  close(): Promise<void>;
}

type Asset = { type: 'native' } | { type: 'credit_alphanum4' | 'credit_alphanum12'; code: string; issuer: string };
class BadRequest extends Error {
  readonly field: string;
  constructor(field: string, reason: string) {
    super(reason);
    this.field = field;
  }
}

const ONE = 10_000_000n;
const toUnits = (amount: string, field: string): bigint => {
  const m = /^(\d+)(?:\.(\d{1,7}))?$/.exec(amount);
  const units = m ? BigInt(m[1]!) * ONE + BigInt((m[2] ?? '').padEnd(7, '0')) : 0n;
  if (units <= 0n) throw new BadRequest(field, 'Value must be a positive amount with at most 7 decimal places');
  return units;
};
const toAmount = (units: bigint) => `${units / ONE}.${(units % ONE).toString().padStart(7, '0')}`;
const idOf = (a: Asset) => (a.type === 'native' ? 'native' : `${a.code}:${a.issuer}`);
const fields = (prefix: string, a: Asset) =>
  a.type === 'native'
    ? { [`${prefix}_asset_type`]: 'native' }
    : { [`${prefix}_asset_type`]: a.type, [`${prefix}_asset_code`]: a.code, [`${prefix}_asset_issuer`]: a.issuer };

function parseCanonical(s: string, field: string): Asset {
  if (s === 'native') return { type: 'native' };
  const [code, issuer, extra] = s.split(':');
  if (
    extra !== undefined ||
    !code ||
    !/^[A-Za-z0-9]{1,12}$/.test(code) ||
    !issuer ||
    !StrKey.isValidEd25519PublicKey(issuer)
  )
    throw new BadRequest(field, `${s} is not a valid asset`);
  return { type: code.length <= 4 ? 'credit_alphanum4' : 'credit_alphanum12', code, issuer };
}

function parseTyped(q: Record<string, string>, prefix: string): Asset {
  const type = q[`${prefix}_asset_type`];
  if (type === 'native') return { type: 'native' };
  if (type !== 'credit_alphanum4' && type !== 'credit_alphanum12')
    throw new BadRequest(`${prefix}_asset_type`, 'Value must be native, credit_alphanum4 or credit_alphanum12');
  const asset = parseCanonical(
    `${q[`${prefix}_asset_code`] ?? ''}:${q[`${prefix}_asset_issuer`] ?? ''}`,
    `${prefix}_asset_code`,
  );
  if (asset.type !== type) throw new BadRequest(`${prefix}_asset_code`, `the code does not fit ${type}`);
  return asset;
}

export async function startHorizonSim(prices: Record<string, string> = {}): Promise<HorizonSim> {
  /** Per asset: [numerator, denominator] units of it per unit of XLM. */
  const book = new Map<string, [bigint, bigint]>();
  const setPrice = (asset: string, tokenPerXlm: string) => {
    const [whole, frac = ''] = tokenPerXlm.split('.');
    book.set(asset, [BigInt(`${whole}${frac}`), 10n ** BigInt(frac.length)]);
  };
  for (const [asset, price] of Object.entries(prices)) setPrice(asset, price);
  const requests: HorizonSim['requests'] = [];

  /** What `units` of `from` buy of `to` (floor), or null without a book between them. */
  const convert = (from: Asset, units: bigint, to: Asset): bigint | null => {
    if (idOf(from) === idOf(to)) return units;
    if (from.type === 'native' && book.has(idOf(to))) return (units * book.get(idOf(to))![0]) / book.get(idOf(to))![1];
    if (to.type === 'native' && book.has(idOf(from)))
      return (units * book.get(idOf(from))![1]) / book.get(idOf(from))![0];
    return null;
  };
  const record = (source: Asset, sourceUnits: bigint, dest: Asset, destUnits: bigint) => ({
    ...fields('source', source),
    source_amount: toAmount(sourceUnits),
    ...fields('destination', dest),
    destination_amount: toAmount(destUnits),
    path: [],
  });

  function strictSend(q: Record<string, string>) {
    const source = parseTyped(q, 'source');
    const amount = toUnits(q.source_amount ?? '', 'source_amount');
    if ((q.destination_assets === undefined) === (q.destination_account === undefined))
      throw new BadRequest(
        'destination_assets',
        'Exactly one of destination_assets and destination_account is required',
      );
    if (q.destination_account !== undefined)
      throw new BadRequest('destination_account', 'this simulation answers destination_assets only');
    const targets = q.destination_assets!.split(',').map((s) => parseCanonical(s, 'destination_assets'));
    return targets.flatMap((dest) => {
      const out = convert(source, amount, dest);
      return out !== null && out > 0n ? [record(source, amount, dest, out)] : [];
    });
  }

  function strictReceive(q: Record<string, string>) {
    const dest = parseTyped(q, 'destination');
    const amount = toUnits(q.destination_amount ?? '', 'destination_amount');
    if ((q.source_assets === undefined) === (q.source_account === undefined))
      throw new BadRequest('source_assets', 'Exactly one of source_assets and source_account is required');
    if (q.source_account !== undefined)
      throw new BadRequest('source_account', 'this simulation answers source_assets only');
    return q.source_assets!.split(',').flatMap((s) => {
      const source = parseCanonical(s, 'source_assets');
      // The least source amount that buys `amount`: rounded up.
      const back = convert(dest, amount, source);
      if (back === null) return [];
      const need = convert(source, back, dest)! >= amount ? back : back + 1n;
      return [record(source, need, dest, amount)];
    });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://horizon.sim');
    const query = Object.fromEntries(url.searchParams);
    const send = (status: number, body: unknown, type = 'application/hal+json') =>
      res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
    const handler =
      url.pathname === '/paths/strict-send'
        ? strictSend
        : url.pathname === '/paths/strict-receive'
          ? strictReceive
          : null;
    if (req.method !== 'GET' || !handler)
      return send(
        404,
        { type: 'https://stellar.org/horizon-errors/not_found', title: 'Resource Missing', status: 404 },
        'application/problem+json',
      );
    requests.push({ path: url.pathname, query });
    try {
      const records = handler(query).sort((a, b) =>
        Number(toUnits(b.destination_amount, 'x') - toUnits(a.destination_amount, 'x')),
      );
      send(200, { _links: { self: { href: url.href } }, _embedded: { records } });
    } catch (err) {
      if (!(err instanceof BadRequest)) throw err;
      send(
        400,
        {
          type: 'https://stellar.org/horizon-errors/bad_request',
          title: 'Bad Request',
          status: 400,
          detail: 'The request you sent was invalid in some way.',
          extras: { invalid_field: err.field, reason: err.message },
        },
        'application/problem+json',
      );
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setPrice,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
