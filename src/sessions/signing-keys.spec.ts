import { generateKeyPairSync } from 'node:crypto';
import { buildAppConfig } from '../config/app-config.js';
import { parseEnvironment } from '../config/environment.js';
import { readRetiredKeys, SigningKeys } from './signing-keys.js';
import { PRODUCTION_ENVIRONMENT } from '../../test/support/test-config.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SECRET = 'q4Zr7XhN0vJm2bYt9KcW1sLd8FpGe5UaTnR3oHiB6yE=';
const keysFor = (env: Record<string, string>) =>
  new SigningKeys(buildAppConfig(parseEnvironment({ JWT_SECRET: SECRET, ...env })));
const pem = (type: 'ec' | 'ed25519', curve?: string) =>
  (type === 'ec' ? generateKeyPairSync('ec', { namedCurve: curve! }) : generateKeyPairSync('ed25519')).privateKey
    .export({ format: 'pem', type: 'pkcs8' })
    .toString();

describe('SigningKeys', () => {
  it('refuses to start in production with an asymmetric algorithm and no key', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'keys-'));
    expect(() => keysFor({ ...PRODUCTION_ENVIRONMENT, JWT_ALGORITHM: 'ES256', DATA_DIR: dataDir })).toThrow(
      /JWT_PRIVATE_KEY or JWT_PRIVATE_KEY_FILE/,
    );
  });

  it('refuses a key that does not fit the algorithm', () => {
    expect(() => keysFor({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: pem('ed25519') })).toThrow(/not a key for ES256/);
    expect(() => keysFor({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: pem('ec', 'P-384') })).toThrow(/P-256 or Ed25519/);
    expect(() => keysFor({ JWT_ALGORITHM: 'EdDSA', JWT_PRIVATE_KEY: 'not a key' })).toThrow(/cannot be read/);
  });

  it('signs with a kid and verifies only its own tokens', async () => {
    const keys = keysFor({ JWT_ALGORITHM: 'EdDSA', JWT_PRIVATE_KEY: pem('ed25519') });
    const token = await keys.sign({ sub: 'x' }, 60, 'access');
    await expect(keys.verify(token, 'access')).resolves.toMatchObject({
      sub: 'x',
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
    const other = keysFor({ JWT_ALGORITHM: 'EdDSA', JWT_PRIVATE_KEY: pem('ed25519') });
    await expect(other.verify(token, 'access')).rejects.toThrow();
    expect((await keys.jwks()).keys).toEqual([
      expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' }),
    ]);
    expect((await keysFor({}).jwks()).keys).toEqual([]);
  });

  it('drops a retired key once the longest token lifetime has passed', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'keys-')), 'key.pem.previous');
    const block = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n';
    writeFileSync(
      file,
      `# retired ${Date.now() - 10_000}\n${block}# retired ${Date.now() - 1_000}\n${block.replace('AAAA', 'BBBB')}`,
    );
    expect(readRetiredKeys(file, 5_000)).toEqual([block.trim().replace('AAAA', 'BBBB')]);
  });
});
