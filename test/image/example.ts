// The reference's basic-example (its config folder and the repository's config/networks), written by us in that shape
// for the image's tests: the full build (image.image.ts) and the build context's layout (layout.test.ts).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const UNREACHABLE = 'http://127.0.0.1:9';

/** The reference's basic-example, laid out as its repository has it: examples/basic-example/config and config/networks. */
export function basicExample(root: string, sepolia: object): { config: string; networks: string } {
  const config = path.join(root, 'examples', 'basic-example', 'config');
  const networks = path.join(root, 'config', 'networks');
  mkdirSync(path.join(config, 'keys'), { recursive: true });
  mkdirSync(networks, { recursive: true });
  // Writable by the container's user (uid 1000): `relaybox keystore create` writes there below.
  chmodSync(path.join(config, 'keys'), 0o777);
  const relayers = [
    {
      id: 'sepolia-example',
      name: 'Sepolia Example',
      network: 'sepolia',
      paused: false,
      notification_id: 'notification-example',
      signer_id: 'local-signer',
      network_type: 'evm',
      policies: { min_balance: 0 },
    },
    {
      id: 'stellar-example',
      name: 'Stellar Example',
      network: 'testnet',
      paused: false,
      notification_id: 'notification-example',
      signer_id: 'local-signer',
      network_type: 'stellar',
    },
  ];
  const file = {
    relayers,
    notifications: [
      {
        id: 'notification-example',
        type: 'webhook',
        url: '',
        signing_key: { type: 'env', value: 'WEBHOOK_SIGNING_KEY' },
      },
    ],
    signers: [
      {
        id: 'local-signer',
        type: 'local',
        config: { path: 'config/keys/local-signer.json', passphrase: { type: 'env', value: 'KEYSTORE_PASSPHRASE' } },
      },
    ],
    networks: './config/networks',
    plugins: [],
  };
  writeFileSync(path.join(config, 'config.json'), JSON.stringify(file, null, 2));
  // The repository's networks, with sepolia as the caller gives it (no public chain is reached here).
  writeFileSync(path.join(networks, 'ethereum.json'), JSON.stringify({ networks: [sepolia] }, null, 2));
  writeFileSync(
    path.join(networks, 'stellar.json'),
    JSON.stringify(
      {
        networks: [
          {
            type: 'stellar',
            network: 'testnet',
            rpc_urls: [UNREACHABLE],
            passphrase: 'Test SDF Network ; September 2015',
            average_blocktime_ms: 5000,
            is_testnet: true,
          },
        ],
      },
      null,
      2,
    ),
  );
  return { config, networks };
}
