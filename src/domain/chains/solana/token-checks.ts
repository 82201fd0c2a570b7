// The SPL token transfers of a user's transaction, read against the chain before the relayer signs: the reference's
// validate_token_transfers (allowed mints, frozen accounts, decimals, the per-token fee cap, balances) and the fee
// payments it finds to the relayer.
import type { InspectedSolanaTransaction, SolanaChain, SplTokenAccount } from './ports.ts';
import { allowedToken, tokensConfigured, type FeePolicy } from './fee-policy.ts';
import { invalidTransaction, policyViolation } from './rpc-errors.ts';

type TokenTransfer = Extract<InspectedSolanaTransaction['instructions'][number]['parsed'], { type: 'token_transfer' }>;

function transfers(
  tx: InspectedSolanaTransaction,
): Array<{ t: TokenTransfer; roles: Map<string, { signer: boolean; writable: boolean }> }> {
  return tx.instructions.flatMap((ix) =>
    ix.parsed.type === 'token_transfer'
      ? [{ t: ix.parsed, roles: new Map(ix.accounts.map((a) => [a.address, a])) }]
      : [],
  );
}

type Holder = Pick<SplTokenAccount, 'owner' | 'mint' | 'amount'> & { frozen: boolean };

/**
 * Token accounts read once each, in parallel; one the transaction itself creates (an associated token account,
 * e.g. the relayer's first of a mint) counts as empty, owned as created; a missing one is absent.
 */
async function readAccounts(
  chain: SolanaChain,
  tx: InspectedSolanaTransaction,
  addresses: string[],
): Promise<Map<string, Holder>> {
  const unique = [...new Set(addresses)];
  const found = await Promise.all(unique.map((a) => chain.tokenAccount(a)));
  const accounts = new Map<string, Holder>();
  for (const ix of tx.instructions)
    if (ix.parsed.type === 'create_ata')
      accounts.set(ix.parsed.ata, { owner: ix.parsed.owner, mint: ix.parsed.mint, amount: 0n, frozen: false });
  unique.forEach((a, i) => found[i] && accounts.set(a, found[i]));
  return accounts;
}

/** With allowed_tokens set (the reference checks nothing without): every token transfer obeys the policy. */
export async function checkTokenTransfers(
  chain: SolanaChain,
  tx: InspectedSolanaTransaction,
  policy: FeePolicy,
  relayer: string,
): Promise<void> {
  if (!tokensConfigured(policy)) return;
  const list = transfers(tx);
  if (list.length === 0) return;
  const accounts = await readAccounts(
    chain,
    tx,
    list.flatMap(({ t }) => [t.source, t.destination]),
  );
  const totals = new Map<string, bigint>();
  for (const { t, roles } of list) {
    if (!roles.get(t.source)?.writable) throw invalidTransaction('Source account must be writable');
    if (roles.get(t.source)?.signer) throw invalidTransaction('Source account must not be signer');
    if (t.source === relayer) throw policyViolation('Relayer account cannot be source');
    if (!roles.get(t.destination)?.writable) throw invalidTransaction('Destination account must be writable');
    if (roles.get(t.destination)?.signer) throw invalidTransaction('Destination account must not be signer');
    if (!roles.get(t.authority)?.signer) throw invalidTransaction(`Owner must be signer ${t.authority}`);
    const source = accounts.get(t.source);
    if (!source) throw invalidTransaction(`Invalid token account: ${t.source} is not a token account`);
    if (source.frozen) throw policyViolation('Token account is frozen');
    const token = allowedToken(policy, source.mint);
    if (!token) throw policyViolation(`Token ${source.mint} not allowed for transfers`);
    if (t.decimals !== null && token.decimals !== undefined && t.decimals !== token.decimals)
      throw invalidTransaction(`Invalid decimals: expected ${token.decimals}, got ${t.decimals}`);
    // A fee transfer: the destination is one of the relayer's token accounts.
    if (
      accounts.get(t.destination)?.owner === relayer &&
      token.max_allowed_fee != null &&
      t.amount > BigInt(token.max_allowed_fee)
    ) {
      throw policyViolation(
        `Transfer amount ${t.amount} exceeds max fee allowed ${token.max_allowed_fee} for token ${source.mint}`,
      );
    }
    totals.set(t.source, (totals.get(t.source) ?? 0n) + t.amount);
  }
  for (const [account, total] of totals) {
    const balance = accounts.get(account)!.amount;
    if (balance < total)
      throw invalidTransaction(
        `Insufficient balance for cumulative transfers: account ${account} has balance ${balance} but requires ${total} across all instructions`,
      );
  }
}

export interface RelayerPayment {
  /** The mint, or null for SOL (a System Program transfer to the relayer). */
  mint: string | null;
  amount: bigint;
}

/**
 * What the transaction pays the relayer: SOL transfers to its address, and token transfers of allowed mints into
 * token accounts it owns from accounts that hold enough (the reference's find_*_payment_to_relayer).
 */
export async function paymentsToRelayer(
  chain: SolanaChain,
  tx: InspectedSolanaTransaction,
  policy: FeePolicy,
  relayer: string,
): Promise<RelayerPayment[]> {
  const sol = tx.instructions.flatMap((ix) =>
    ix.parsed.type === 'system_transfer' && ix.parsed.to === relayer
      ? [{ mint: null, amount: ix.parsed.lamports }]
      : [],
  );
  const list = transfers(tx).map(({ t }) => t);
  if (!tokensConfigured(policy) || list.length === 0) return sol;
  const accounts = await readAccounts(
    chain,
    tx,
    list.flatMap((t) => [t.source, t.destination]),
  );
  const tokens = list.flatMap((t) => {
    const [source, destination] = [accounts.get(t.source), accounts.get(t.destination)];
    if (!source || !destination || destination.owner !== relayer || source.amount < t.amount) return [];
    return allowedToken(policy, destination.mint) ? [{ mint: destination.mint, amount: t.amount }] : [];
  });
  return [...sol, ...tokens];
}
