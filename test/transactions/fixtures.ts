// Shared test fixtures: a config with one relayer per network (plus spares), and real Solana/Stellar payloads.
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-base';
import type { ConfigFile, NetworkConfig } from '../../src/config/config.ts';
import { build, type BuildOptions, type TestServer } from '../helper.ts';
import { startSolanaSim, type SolanaSim } from '../support/solana-rpc.ts';
import { solanaKey } from './solana-support.ts';
import { stellarKey } from './stellar-support.ts';
import type { TestContext } from 'node:test';

/** Hardhat's publicly known development accounts #0 and #1: never hold real funds. */
export const EVM_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const EVM_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const EVM_KEY_2 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** Throwaway development keys derived from public phrases (test/transactions/*-support.ts): never hold real funds. */
const SOLANA_KEY = solanaKey('fixtures');
const STELLAR_KEY = stellarKey('fixtures');
export const SOLANA_ADDRESS = SOLANA_KEY.signer.address;
export const STELLAR_ADDRESS = STELLAR_KEY.publicKey();
/** Nothing listens here: Stellar sends are stored and their lane retries in the background. */
const UNREACHABLE_RPC = 'http://127.0.0.1:9/';
const STELLAR_PASSPHRASE = Networks.TESTNET;
export const CHAIN_ID = 11155111;

/**
 * An EVM network served by a devnet (anvil) that the app starts itself: speed prices come from it. Its blocks come
 * an hour apart and nothing is re-priced within the hour, so sent transactions stay `submitted` while a test looks
 * at them (the lifecycle itself is tested in test/transactions/lifecycle/ against an anvil the test drives).
 */
export const devnetNetwork = (network: string, chainId: number, features = ['eip1559']): NetworkConfig => ({
  type: 'evm',
  network,
  chain_id: chainId,
  required_confirmations: 1,
  symbol: 'ETH',
  average_blocktime_ms: 1000,
  features,
  rpc_urls: [],
  resubmit_timeout_ms: 3_600_000,
  devnet: { block_time_ms: 3_600_000 },
});

export const testConfig: Partial<ConfigFile> = {
  networks: [
    devnetNetwork('sepolia', CHAIN_ID),
    devnetNetwork('legacy-chain', 31337, []),
    // buildWithRelayers points this one at a simulated Solana network (test/support/solana-rpc.ts) started for the test.
    { type: 'solana', network: 'solana-devnet', rpc_urls: [{ url: UNREACHABLE_RPC, weight: 100 }] },
    {
      type: 'stellar',
      network: 'stellar-testnet',
      passphrase: STELLAR_PASSPHRASE,
      rpc_urls: [{ url: UNREACHABLE_RPC, weight: 100 }],
    },
  ],
  signers: [
    { id: 'evm-signer', type: 'local', development: true, private_key: EVM_KEY },
    { id: 'evm-signer-env', type: 'local', private_key_env: 'RELAYBOX_TEST_EVM_KEY' },
    { id: 'solana-signer', type: 'local', development: true, private_key: SOLANA_KEY.hex },
    { id: 'stellar-signer', type: 'local', development: true, private_key: STELLAR_KEY.secret() },
  ],
  relayers: [
    { id: 'evm', name: 'EVM relayer', network: 'sepolia', signer_id: 'evm-signer' },
    {
      id: 'evm-env',
      name: 'EVM relayer keyed from the environment',
      network: 'sepolia',
      signer_id: 'evm-signer-env',
      initial_nonce: 7,
    },
    { id: 'evm-legacy', name: 'EVM relayer on a legacy-fee chain', network: 'legacy-chain', signer_id: 'evm-signer' },
    { id: 'evm-paused', name: 'Paused EVM relayer', network: 'sepolia', signer_id: 'evm-signer', paused: true },
    // It pays its users' fees (without the field, users would pay in tokens: the reference's default).
    {
      id: 'solana',
      name: 'Solana relayer',
      network: 'solana-devnet',
      signer_id: 'solana-signer',
      policies: { fee_payment_strategy: 'relayer' },
    },
    { id: 'stellar', name: 'Stellar relayer', network: 'stellar-testnet', signer_id: 'stellar-signer' },
  ],
  notifications: [{ id: 'hook-a', type: 'webhook', url: 'http://127.0.0.1:9/hook' }],
};

// The env-keyed signer reads process.env at start (see src/signers/local/key-source.ts).
process.env.RELAYBOX_TEST_EVM_KEY ??= EVM_KEY_2;

/**
 * The app with the relayers above. The Solana network is a SIMULATED one (the real SVM behind a JSON-RPC stand-in,
 * slots advancing only on demand), since a Solana send is signed with the network's fee and balance.
 */
export async function buildWithRelayers(
  t: TestContext | undefined,
  options: BuildOptions = {},
): Promise<TestServer & { solana: SolanaSim }> {
  const solana = await startSolanaSim({ slotMs: 0 });
  solana.airdrop(SOLANA_ADDRESS, 100_000_000_000n);
  const networks = (testConfig.networks ?? []).map((n) =>
    n.type === 'solana' ? { ...n, rpc_urls: [{ url: solana.url, weight: 100 }] } : n,
  );
  const s = await build(t, { ...options, config: { ...testConfig, networks, ...options.config } });
  if (t) t.after(() => solana.close());
  else {
    // No test context (restart tests close the first app themselves): the simulator stops with the app.
    const close = s.app.close.bind(s.app);
    s.app.close = async () => {
      await close();
      await solana.close();
    };
  }
  return Object.assign(s, { solana });
}

/** A minimal valid EVM send body (EIP-1559 explicit prices, above a fresh devnet's 1 gwei base fee). */
export const evmBody = (extra: Record<string, unknown> = {}) => ({
  value: 1,
  to: TO,
  max_fee_per_gas: 20_000_000_000,
  max_priority_fee_per_gas: 1_000_000_000,
  ...extra,
});

/** Gives the relayers' key a balance beyond any u128 amount on the fixture devnet `network` (anvil_setBalance). */
export async function fundWithoutLimit(s: TestServer, network = 'sepolia'): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'anvil_setBalance',
    params: [EVM_ADDRESS, '0x' + (1n << 200n).toString(16)],
  });
  await fetch(s.app.chains.devnets.get(network)!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
}

/** Statuses a send reaches on the fixtures' devnets: signed (`sent`), then broadcast (`submitted`). */
export const IN_FLIGHT = ['sent', 'submitted'];

/**
 * A real, compiled (unsigned) Solana v0 transaction with one instruction, base64 wire format. A test that has it
 * signed passes the simulated network's blockhash (`s.solana.svm.latestBlockhash()`): the relayer simulates before it
 * signs, and a made-up blockhash is refused there.
 */
export function solanaTransaction(recentBlockhash = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k'): string {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(SOLANA_ADDRESS), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash(recentBlockhash), lastValidBlockHeight: 100n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
          data: new TextEncoder().encode('relaybox test'),
        },
        m,
      ),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

/** A Stellar payment transaction envelope in base64 XDR, signed by a throwaway key when asked. */
export function stellarXdr(options: { signed?: boolean } = {}): string {
  const source = Keypair.random();
  const tx = new TransactionBuilder(new Account(source.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: STELLAR_PASSPHRASE,
  })
    .addOperation(Operation.payment({ destination: STELLAR_ADDRESS, asset: Asset.native(), amount: '1' }))
    .setTimeout(30)
    .build();
  if (options.signed) tx.sign(source);
  return tx.toXDR();
}

export const payment = (extra: Record<string, unknown> = {}) => ({
  type: 'payment',
  destination: STELLAR_ADDRESS,
  amount: 10_000_000,
  asset: { type: 'native' },
  ...extra,
});

export const stellarBody = (extra: Record<string, unknown> = {}) => ({
  network: 'stellar-testnet',
  operations: [payment()],
  ...extra,
});

export const txPath = (relayer: string, id = '') => `/api/v1/relayers/${relayer}/transactions/${id}`;
