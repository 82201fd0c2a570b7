// The signing gate (src/domain/signers/gate.ts) on a SIMULATED Stellar network (test/support/stellar-rpc.ts: real XDR
// parsing and signature checks, simulated ledgers; no Soroban VM, so every contract call fails its simulation, as a
// failing call does on a real RPC), through the real HTTP server: where the relayer pays the fee, sign-transaction
// applies its max_fee and min_balance; a Soroban call the relayer would sign or fee-bump unsimulated is simulated
// first and refused when the simulation fails. The real signer adapters count their signatures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Account, Asset, Keypair, Operation, StrKey, TransactionBuilder, type xdr } from '@stellar/stellar-base';
import { build, type TestServer } from '../helper.ts';
import { startStellarSim, type StellarSim } from '../support/stellar-rpc.ts';
import { faultySigners } from '../support/signer-faults.ts';
import { waitFinal } from '../transactions/wait-final.ts';

const KEY = Keypair.random();
const RELAYER = KEY.publicKey();
const XLM = 10_000_000n;

let sim: StellarSim;
let s: TestServer;
let signer: ReturnType<typeof faultySigners>;

before(async () => {
  sim = await startStellarSim({ ledgerMs: 50 });
  sim.fund(RELAYER, 1_000n * XLM);
  signer = faultySigners();
  s = await build(undefined, {
    resolveSigner: signer.resolveSigner,
    env: { LOG_LEVEL: 'warn' },
    config: {
      networks: [
        {
          type: 'stellar',
          network: 'stellar-sim',
          passphrase: sim.passphrase,
          rpc_urls: [{ url: sim.url, weight: 100 }],
          average_blocktime_ms: 50,
        },
      ],
      signers: [{ id: 'key', type: 'local', private_key: KEY.secret() }],
      relayers: [
        {
          id: 'xlm',
          name: 'Relayer pays, max_fee 1000',
          network: 'stellar-sim',
          signer_id: 'key',
          policies: { max_fee: 1_000 },
        },
        {
          id: 'xlm-keeps',
          name: 'Relayer pays, keeps almost everything',
          network: 'stellar-sim',
          signer_id: 'key',
          policies: { min_balance: Number(1_000n * XLM - 50n) },
        },
      ],
      notifications: [],
    } as never,
  });
});
after(async () => {
  await s?.close();
  await sim?.close();
});

const signRoute = (relayer: string, unsigned_xdr: string) =>
  s.request('POST', `/api/v1/relayers/${relayer}/sign-transaction`, { body: { unsigned_xdr } });

/** A transaction from `source` (its next sequence as the simulator knows it) with `op`, the fee bid `fee`. */
function transaction(source: string, op: xdr.Operation, fee = 100): ReturnType<TransactionBuilder['build']> {
  const sequence = (sim.account(source)?.seq ?? 0n).toString();
  return new TransactionBuilder(new Account(source, sequence), { fee: String(fee), networkPassphrase: sim.passphrase })
    .addOperation(op)
    .setTimeout(120)
    .build();
}

const pay = (destination: string) => Operation.payment({ destination, asset: Asset.native(), amount: '1' });
const contractCall = () =>
  Operation.invokeContractFunction({
    contract: StrKey.encodeContract(randomBytes(32)),
    function: 'transfer',
    args: [],
  });

/** Asks `ask` and checks it was refused with `reason` before the key signed anything. */
async function refusedUnsigned(relayer: string, unsigned: string, reason: RegExp, what: string): Promise<void> {
  const before = signer.faults.signatures;
  const res = await signRoute(relayer, unsigned);
  assert.equal(res.status, 400, `${what}: ${res.text}`);
  assert.match(res.body.error, reason, what);
  assert.equal(signer.faults.signatures, before, `${what}: the key was asked for a signature`);
}

test('relayer pays: sign-transaction of a transaction the relayer pays for applies its max_fee and min_balance', async () => {
  const dest = Keypair.random().publicKey();
  await refusedUnsigned(
    'xlm',
    transaction(RELAYER, pay(dest), 5_000).toXDR(),
    /^Policy violation: the transaction's fee \(5000\) is above the relayer's max_fee \(1000\)$/,
    'max_fee',
  );
  await refusedUnsigned(
    'xlm-keeps',
    transaction(RELAYER, pay(dest)).toXDR(),
    new RegExp(
      `^Insufficient relayer balance\\. Required: ${1_000n * XLM + 50n}, Available: ${1_000n * XLM}, Fee: 100, Min balance: ${1_000n * XLM - 50n}$`,
    ),
    'min_balance',
  );
  // Control: within the policies, and a transaction someone else pays for, are signed as given.
  const within = await signRoute('xlm', transaction(RELAYER, pay(dest)).toXDR());
  assert.equal(within.status, 200, within.text);
  const client = Keypair.random();
  sim.fund(client.publicKey(), 100n * XLM);
  const theirs = await signRoute('xlm-keeps', transaction(client.publicKey(), pay(dest), 5_000).toXDR());
  assert.equal(theirs.status, 200, theirs.text);
});

test('a contract call is simulated before the relayer signs it as given or pays its fee bump; a failing simulation refuses it', async () => {
  await refusedUnsigned(
    'xlm',
    transaction(RELAYER, contractCall()).toXDR(),
    /^Simulation failed: .*Soroban VM/,
    'sign-transaction of a contract call',
  );

  // A user's signed contract call sent with fee_bump: true: the relayer would pay its fee; it fails before any signature.
  const user = Keypair.random();
  sim.fund(user.publicKey(), 100n * XLM);
  const inner = transaction(user.publicKey(), contractCall());
  inner.sign(user);
  const before = signer.faults.signatures;
  const submits = sim.calls.get('sendTransaction') ?? 0;
  const sent = await s.request('POST', '/api/v1/relayers/xlm/transactions', {
    body: { network: 'stellar-sim', transaction_xdr: inner.toXDR(), fee_bump: true, max_fee: 1_000 },
  });
  assert.equal(sent.status, 200, sent.text);
  const done = await waitFinal(s, 'xlm', sent.body.data.id);
  assert.equal(done.status, 'failed');
  assert.match(done.status_reason, /^Simulation failed: .*Soroban VM/);
  assert.equal(signer.faults.signatures, before, 'the fee bump was never signed');
  assert.equal(sim.calls.get('sendTransaction') ?? 0, submits, 'nothing was submitted');
});
