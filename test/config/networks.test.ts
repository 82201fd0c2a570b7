// Networks in the OpenZeppelin Relayer's shape: inline or a directory, `from` inheritance, refused fields, relayer references.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfigFile, type ConfigFile } from '../../src/config/config.ts';

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'relaybox-networks-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const mainnet = {
  type: 'evm',
  network: 'mainnet',
  chain_id: 1,
  required_confirmations: 12,
  symbol: 'ETH',
  average_blocktime_ms: 12000,
  features: ['eip1559'],
  is_testnet: false,
  rpc_urls: ['https://eth.example.org', { url: 'https://backup.example.org/key', weight: 40 }],
  explorer_urls: ['https://etherscan.io'],
  tags: ['l1'],
};
const sepolia = {
  from: 'mainnet',
  type: 'evm',
  network: 'sepolia',
  chain_id: 11155111,
  is_testnet: true,
  required_confirmations: 6,
  rpc_urls: ['https://sepolia.example.org'],
  tags: ['testnet'],
};

/** Writes a config file (relayers on `relayerNetwork` unless none) and loads it. */
function load(dir: string, networks: unknown, relayers: unknown[] = []): ConfigFile {
  const file = path.join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      networks,
      signers: [{ id: 'key', type: 'local', development: true, private_key: KEY }],
      relayers,
    }),
  );
  return loadConfigFile(file);
}

const relayer = (network: string, extra: object = {}) => ({
  id: 'r',
  name: 'relayer',
  network,
  signer_id: 'key',
  ...extra,
});

test('an inline array loads; rpc_urls strings and { url, weight } objects become objects (weight 100 by default)', (t) => {
  const file = load(tempDir(t), [mainnet], [relayer('mainnet')]);
  assert.deepEqual(file.networks[0]!.rpc_urls, [
    { url: 'https://eth.example.org', weight: 100 },
    { url: 'https://backup.example.org/key', weight: 40 },
  ]);
  assert.equal(file.relayers[0]!.network_type, 'evm', 'network_type is inferred when only one type has the name');
});

test('from inherits through a chain: child fields win, tags and features merge, rpc_urls are replaced', (t) => {
  const holesky = {
    from: 'sepolia',
    type: 'evm',
    network: 'holesky',
    chain_id: 17000,
    rpc_urls: ['https://holesky.example.org'],
    tags: ['deprecated'],
    features: ['eip1559', 'x'],
  };
  const file = load(tempDir(t), [holesky, sepolia, mainnet]);
  const byName = Object.fromEntries(file.networks.map((n) => [n.network, n]));
  assert.deepEqual(byName.sepolia, {
    ...mainnet,
    network: 'sepolia',
    chain_id: 11155111,
    is_testnet: true,
    required_confirmations: 6,
    rpc_urls: [{ url: 'https://sepolia.example.org', weight: 100 }],
    tags: ['l1', 'testnet'],
  });
  assert.equal(byName.holesky!.required_confirmations, 6, 'from the parent');
  assert.equal(byName.holesky!.symbol, 'ETH', 'from the grandparent');
  assert.deepEqual(byName.holesky!.tags, ['l1', 'testnet', 'deprecated']);
  assert.deepEqual(byName.holesky!.features, ['eip1559', 'x']);
  assert.ok(!('from' in byName.holesky!), 'resolved networks no longer name a parent');
});

test('inheritance cycles, self-inheritance, unknown parents and parents of another type are refused', (t) => {
  const dir = tempDir(t);
  const evm = (network: string, from: string) => ({ ...mainnet, network, from });
  assert.throws(
    () => load(dir, [evm('a', 'b'), evm('b', 'c'), evm('c', 'a')]),
    /networks\.0\.from: inheritance cycle: a -> b -> c -> a/,
  );
  assert.throws(() => load(dir, [evm('a', 'a')]), /inheritance cycle: a -> a/);
  assert.throws(
    () => load(dir, [evm('a', 'nowhere')]),
    /networks\.0\.from: evm network 'a' inherits from unknown evm network 'nowhere'/,
  );
  const solana = { type: 'solana', network: 'sol', rpc_urls: ['https://api.example.org'] };
  assert.throws(() => load(dir, [solana, evm('a', 'sol')]), /inherits from unknown evm network 'sol'/);
});

test('an unknown field is refused with its name, inline and in a directory file', (t) => {
  const dir = tempDir(t);
  assert.throws(() => load(dir, [{ ...mainnet, gas_oracle: 'x' }]), /unknown field 'networks\.0\.gas_oracle'/);
  assert.throws(
    () =>
      load(dir, [{ type: 'stellar', network: 's', rpc_urls: ['https://x.example.org'], passphrase: 'p', chain_id: 1 }]),
    /unknown field 'networks\.0\.chain_id'/,
  );
  mkdirSync(path.join(dir, 'nets'));
  writeFileSync(
    path.join(dir, 'nets', 'bad.json'),
    JSON.stringify({ networks: [mainnet, { ...sepolia, colour: 'blue' }] }),
  );
  assert.throws(() => load(dir, './nets'), /networks\/bad\.json: unknown field 'networks\.1\.colour'/);
});

test('the previous shape is refused with what to change: id became network, fees went away', (t) => {
  const dir = tempDir(t);
  assert.throws(
    () => load(dir, [{ id: 'sepolia', type: 'evm', chain_id: 1 }]),
    /networks\.0\.id was renamed to 'network'/,
  );
  assert.throws(
    () => load(dir, [{ ...mainnet, fees: {} }]),
    /networks\.0\.fees was removed: speed prices now come from the chain/,
  );
});

test('required fields are checked after inheritance; a devnet network takes no rpc_urls', (t) => {
  const dir = tempDir(t);
  const { chain_id: _c, ...noChainId } = mainnet;
  assert.throws(() => load(dir, [noChainId]), /networks\.0: evm network 'mainnet' needs 'chain_id'/);
  const { rpc_urls: _r, ...noUrls } = mainnet;
  assert.throws(() => load(dir, [noUrls]), /needs 'rpc_urls'/);
  assert.throws(
    () => load(dir, [{ ...mainnet, devnet: {} }]),
    /a 'devnet' network gets its RPC URL from the devnet; remove 'rpc_urls'/,
  );
  assert.throws(
    () => load(dir, [{ type: 'stellar', network: 's', rpc_urls: ['https://x.example.org'] }]),
    /stellar network 's' needs 'passphrase'/,
  );
  const devnet = load(dir, [{ ...noUrls, devnet: { block_time_ms: 1000 } }]).networks[0]!;
  assert.deepEqual([devnet.rpc_urls, devnet.devnet], [[], { block_time_ms: 1000 }]);
  assert.throws(
    () => load(dir, [{ ...mainnet, rpc_urls: [{ url: 'https://x.example.org', weight: 101 }] }]),
    /'networks\.0\.rpc_urls\.0' must be an http\(s\) URL string, or \{ "url", "weight" \}/,
  );
});

test('names are unique per type; a relayer naming a shared name needs network_type', (t) => {
  const dir = tempDir(t);
  assert.throws(
    () => load(dir, [mainnet, mainnet]),
    /networks\.1\.network: duplicate evm network 'mainnet' \(also networks\.0\)/,
  );
  const solana = { type: 'solana', network: 'mainnet', rpc_urls: ['https://api.example.org'] };
  assert.throws(
    () => load(dir, [mainnet, solana], [relayer('mainnet')]),
    /relayers\.0\.network_type: required, network 'mainnet' exists as evm and solana/,
  );
  const file = load(dir, [mainnet, solana], [relayer('mainnet', { network_type: 'evm' })]);
  assert.equal(file.relayers[0]!.network_type, 'evm');
  assert.throws(
    () => load(dir, [mainnet], [relayer('mainnet', { network_type: 'solana' })]),
    /relayers\.0\.network: unknown solana network 'mainnet'/,
  );
  assert.throws(() => load(dir, [mainnet], [relayer('ghost')]), /relayers\.0\.network: unknown network 'ghost'/);
});

test('a directory path is taken relative to the config file; an empty or missing directory is refused', (t) => {
  const dir = tempDir(t);
  mkdirSync(path.join(dir, 'networks'));
  writeFileSync(path.join(dir, 'networks', 'ethereum.json'), JSON.stringify({ networks: [mainnet, sepolia] }));
  writeFileSync(path.join(dir, 'networks', 'notes.txt'), 'not a network file');
  writeFileSync(
    path.join(dir, 'networks', 'solana.json'),
    JSON.stringify({ networks: [{ type: 'solana', network: 'devnet', rpc_urls: ['https://api.example.org'] }] }),
  );
  const file = load(dir, './networks', [relayer('sepolia')]);
  assert.deepEqual(
    file.networks.map((n) => `${n.type}:${n.network}`),
    ['evm:mainnet', 'evm:sepolia', 'solana:devnet'],
  );
  mkdirSync(path.join(dir, 'empty'));
  assert.throws(() => load(dir, 'empty'), /holds no JSON network files/);
  assert.throws(() => load(dir, './missing'), /networks: directory '\.\/missing' not found/);
});

test("the reference product's own config/networks directory loads (a copy made for this test)", (t) => {
  const mirror = '/work/.mirror/OpenZeppelin+openzeppelin-relayer/repo';
  if (!existsSync(mirror)) return t.skip('no local copy of the reference repository');
  const git = (...args: string[]) => execFileSync('git', [`--git-dir=${mirror}`, ...args]).toString();
  const dir = tempDir(t);
  mkdirSync(path.join(dir, 'networks'));
  const files = git('ls-tree', '--name-only', 'HEAD', 'config/networks/')
    .split('\n')
    .filter((f) => f.endsWith('.json'));
  for (const f of files) writeFileSync(path.join(dir, 'networks', path.basename(f)), git('show', `HEAD:${f}`));
  const file = load(dir, './networks', [
    relayer('sepolia', { network_type: 'evm' }),
    { ...relayer('devnet'), id: 's', network_type: 'solana' },
  ]);
  assert.ok(file.networks.length >= 50, `${file.networks.length} networks`);
  const sepoliaNet = file.networks.find((n) => n.type === 'evm' && n.network === 'sepolia')!;
  assert.equal(sepoliaNet.chain_id, 11155111);
  assert.equal(sepoliaNet.symbol, 'ETH', 'inherited from mainnet');
  assert.deepEqual(sepoliaNet.features, ['eip1559']);
  const stellar = file.networks.find((n) => n.type === 'stellar' && n.network === 'testnet')!;
  assert.equal(stellar.passphrase, 'Test SDF Network ; September 2015');
});
