// Web3 Secret Storage v3 keystores: the reference's local signer form, decrypted with scrypt or PBKDF2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decryptKeystore } from '../../src/signers/local/keystore.ts';
import { makeKeystore } from '../support/keystore.ts';

const SECRET = Buffer.from('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'hex');

test('a v3 keystore opens with its passphrase, with scrypt or with PBKDF2', () => {
  for (const kdf of ['scrypt', 'pbkdf2'] as const) {
    const keystore = makeKeystore(SECRET, 'correct horse', { kdf });
    assert.deepEqual(decryptKeystore(keystore, 'correct horse'), SECRET, kdf);
  }
});

test('a published test vector (Web3 Secret Storage definition, PBKDF2) opens to its key', () => {
  // From the Ethereum wiki's "Web3 Secret Storage Definition": passphrase "testpassword".
  const vector = {
    version: 3,
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
      ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
      kdf: 'pbkdf2',
      kdfparams: {
        c: 262144,
        dklen: 32,
        prf: 'hmac-sha256',
        salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
      },
      mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
    },
  };
  assert.equal(
    decryptKeystore(vector, 'testpassword').toString('hex'),
    '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d',
  );
});

test('a wrong passphrase, a foreign format and an unsupported cipher are refused with a reason, never the secret', () => {
  const keystore = makeKeystore(SECRET, 'right') as { crypto: Record<string, unknown> };
  assert.throws(() => decryptKeystore(keystore, 'wrong'), /wrong passphrase/);
  assert.throws(() => decryptKeystore({ version: 1 }, 'x'), /not a Web3 Secret Storage keystore/);
  assert.throws(
    () => decryptKeystore({ ...keystore, crypto: { ...keystore.crypto, cipher: 'aes-128-cbc' } }, 'right'),
    /cipher 'aes-128-cbc' is not supported/,
  );
  assert.throws(
    () => decryptKeystore({ ...keystore, crypto: { ...keystore.crypto, kdf: 'argon2' } }, 'right'),
    /key derivation 'argon2' is not supported/,
  );
  try {
    decryptKeystore(keystore, 'wrong');
  } catch (err) {
    assert.ok(!(err as Error).message.includes(SECRET.toString('hex')) && !(err as Error).message.includes('right'));
  }
});
