// Building and signing for the relayer, with the chain reads they need: sequence from the network, fees within max_fee, Soroban simulation.
import { FeeBumpTransaction, StrKey, Transaction, TransactionBuilder, xdr } from '@stellar/stellar-base';
import { ValidationError } from '../../errors.ts';
import type {
  StellarChain,
  StellarFeeStats,
  StellarMemoSpec,
  StellarOperationSpec,
} from '../../domain/chains/stellar/ports.ts';
import {
  approve,
  BASE_FEE,
  buildTransaction,
  DEFAULT_VALIDITY_MS,
  feePerOperation,
  isSoroban,
  parseEnvelope,
  signedResult,
  signWith,
  toMemo,
  toOperation,
} from './build.ts';

type Reads = Pick<StellarChain, 'account' | 'feeStats' | 'simulate'>;

export interface SigningDeps {
  passphrase: string;
  reads: Reads;
  /** Fee statistics are reused this long (about a ledger). */
  feeCacheMs: number;
}

function createFeeCache(reads: Reads, ms: number): () => Promise<StellarFeeStats> {
  let cached: { at: number; value: Promise<StellarFeeStats> } | undefined;
  return () => {
    if (cached && Date.now() - cached.at < ms) return cached.value;
    const entry = (cached = { at: Date.now(), value: reads.feeStats() });
    entry.value.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return entry.value;
  };
}

/** The soroban resource fee an envelope already carries (0 for classic). */
function resourceFee(tx: Transaction): bigint {
  const ext = tx.toEnvelope().v1().tx().ext();
  return ext.switch() === 1 ? BigInt(ext.sorobanData().resourceFee().toString()) : 0n;
}

function checkRelayerSource(source: string, relayer: string, field: string): void {
  if (source !== relayer)
    throw new ValidationError(
      `${field} ${source} does not match the relayer's address ${relayer}: the relayer signs and pays for this transaction`,
    );
}

/** Operations built as buildAndSign builds them (with the Soroban one-operation rule) and the memo; no network. */
function checkOperations(operations: StellarOperationSpec[], memo?: StellarMemoSpec | null): xdr.Operation[] {
  const built = operations.map(toOperation);
  if (isSoroban(built) && built.length !== 1)
    throw new ValidationError(
      'an invoke_contract operation must be the only operation of its transaction (a Soroban rule)',
    );
  toMemo(memo);
  return built;
}

export function createSigning({
  passphrase,
  reads,
  feeCacheMs,
}: SigningDeps): Pick<
  StellarChain,
  'buildAndSign' | 'signXdr' | 'feeBump' | 'checkOperations' | 'encodeOperations' | 'signEnvelope'
> {
  const fees = createFeeCache(reads, feeCacheMs);

  const nextSequence = async (address: string, given?: bigint): Promise<bigint> => {
    if (given !== undefined) return given;
    const acc = await reads.account(address);
    if (!acc)
      throw new ValidationError(`the relayer's account ${address} does not exist on this network; fund it first`);
    return acc.sequence + 1n;
  };

  /** Simulates a Soroban call: its resource data, resource fee and (when the request left them to the node) auth entries. */
  const simulateSoroban = async (tx: Transaction) => {
    const sim = await reads.simulate(tx.toXDR());
    if (!sim.ok) throw new ValidationError(`the contract call fails in simulation: ${sim.error}`);
    return {
      sorobanData: xdr.SorobanTransactionData.fromXDR(sim.transactionData, 'base64'),
      resourceFee: sim.minResourceFee,
      auth: sim.auth,
    };
  };

  return {
    async buildAndSign(request, signer, approval) {
      if (request.source_account != null)
        checkRelayerSource(request.source_account, signer.address, "'source_account'");
      const operations = checkOperations(request.operations, request.memo);
      if (request.operationsSource !== undefined) {
        const source = xdr.MuxedAccount.keyTypeEd25519(StrKey.decodeEd25519PublicKey(request.operationsSource));
        for (const op of operations) op.sourceAccount(source);
      }
      const soroban = isSoroban(operations);
      const [sequence, stats] = await Promise.all([nextSequence(signer.address, request.sequence), fees()]);
      const maxTime = Math.floor((request.validUntil?.getTime() ?? Date.now() + DEFAULT_VALIDITY_MS) / 1000);
      const suggested = soroban ? stats.soroban.p90 : stats.classic.p90;
      const input = {
        source: signer.address,
        sequence,
        operations,
        memo: toMemo(request.memo),
        maxTime,
        passphrase,
        feePerOp: feePerOperation(suggested, operations.length, request.maxFee),
      };
      let tx = buildTransaction(input);
      if (soroban) {
        const sim = await simulateSoroban(tx);
        const op = operations[0]!;
        // Auth entries the node recorded replace the default ones when the request gave no auth of its own.
        const explicitAuth = (request.operations[0] as { auth?: unknown }).auth !== undefined;
        if (sim.auth.length > 0 && !explicitAuth)
          op.body()
            .invokeHostFunctionOp()
            .auth(sim.auth.map((a) => xdr.SorobanAuthorizationEntry.fromXDR(a, 'base64')));
        const feePerOp = feePerOperation(suggested, 1, request.maxFee, sim.resourceFee);
        tx = buildTransaction({ ...input, operations: [op], feePerOp, sorobanData: sim.sorobanData });
      }
      await signWith(tx, signer, approval, soroban);
      return signedResult(tx);
    },

    checkOperations: (operations, memo) => void checkOperations(operations, memo),
    encodeOperations: (operations) => checkOperations(operations).map((op) => op.toXDR('base64')),

    async signXdr(envelope, signer, options, approval) {
      const tx = parseEnvelope(envelope, passphrase);
      if (options.resign && !(tx instanceof FeeBumpTransaction)) tx.signatures.splice(0);
      if (tx instanceof FeeBumpTransaction)
        throw new ValidationError(
          "'transaction_xdr' is already a fee bump transaction; send the inner transaction with fee_bump: true",
        );
      if (tx.signatures.length > 0)
        throw new ValidationError(
          "'transaction_xdr' is signed: send it with fee_bump: true for the relayer to pay for it, or unsigned for the relayer to sign it",
        );
      const env = tx.toEnvelope();
      if (env.switch() !== xdr.EnvelopeType.envelopeTypeTx())
        throw new ValidationError(
          "'transaction_xdr' uses the legacy v0 envelope; encode it as a v1 transaction envelope",
        );
      checkRelayerSource(tx.source, signer.address, 'transaction source account');
      const body = env.v1().tx();
      body.seqNum(xdr.Int64.fromString((await nextSequence(signer.address, options.sequence)).toString()));
      let resource = resourceFee(tx);
      let simulated = false;
      if (isSoroban(body.operations()) && body.ext().switch() === 0) {
        const sim = await simulateSoroban(new Transaction(env, passphrase));
        body.ext(new xdr.TransactionExt(1, sim.sorobanData));
        resource = sim.resourceFee;
        simulated = true;
      }
      // The reference's rule: a fee below the minimum is raised to it; above max_fee is refused.
      const minimum = BASE_FEE * BigInt(tx.operations.length) + resource;
      const fee = BigInt(body.fee()) < minimum ? minimum : BigInt(body.fee());
      if (fee > options.maxFee)
        throw new ValidationError(`the transaction's fee (${fee}) is above max_fee (${options.maxFee})`);
      body.fee(Number(fee));
      const signed = new Transaction(env, passphrase);
      await signWith(signed, signer, approval, simulated);
      return signedResult(signed);
    },

    async signEnvelope(envelope, signer, field, approval) {
      const tx = parseEnvelope(envelope, passphrase, field);
      await approve(tx, approval);
      const signature = await signer.sign(tx.hash());
      tx.addSignature(signer.address, Buffer.from(signature).toString('base64'));
      return { envelopeXdr: tx.toXDR(), signature: Buffer.from(signature).toString('base64') };
    },

    async feeBump(envelope, signer, options, approval) {
      const inner = parseEnvelope(envelope, passphrase);
      if (inner instanceof FeeBumpTransaction)
        throw new ValidationError("'transaction_xdr' is already a fee bump transaction");
      if (inner.signatures.length === 0) throw new ValidationError("'fee_bump' requires a signed 'transaction_xdr'");
      const ops = BigInt(inner.operations.length);
      const resource = resourceFee(inner);
      // CAP-15: the fee bump's rate is at least the inner rate and the minimum, over ops + 1.
      const innerRate = (BigInt(inner.fee) - resource + ops - 1n) / ops;
      const minRate = innerRate > BASE_FEE ? innerRate : BASE_FEE;
      const required = minRate * (ops + 1n) + resource;
      if (options.maxFee < required)
        throw new ValidationError(`max_fee (${options.maxFee}) is insufficient. Required fee-bump fee: ${required}`);
      const stats = await fees();
      const wanted = stats.classic.p90 > minRate ? stats.classic.p90 : minRate;
      const fits = (options.maxFee - resource) / (ops + 1n);
      const rate = wanted < fits ? wanted : fits;
      const bump = TransactionBuilder.buildFeeBumpTransaction(signer.address, rate.toString(), inner, passphrase);
      await signWith(bump, signer, approval);
      return signedResult(bump);
    },
  };
}
