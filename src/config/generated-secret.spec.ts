import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keptSecret } from './generated-secret.js';

describe('the secret kept in DATA_DIR outside production', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'auth-secret-')), 'data');
  });
  afterEach(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));

  it('is generated once into DATA_DIR/jwt-secret, mode 0600, and the same secret is read at every later start', () => {
    const first = keptSecret(dataDir, 32);
    const file = path.join(dataDir, 'jwt-secret');
    expect(first).toEqual({ secret: expect.any(String), file, created: true });
    expect(Buffer.byteLength(first.secret)).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(first.secret);

    const second = keptSecret(dataDir, 32);
    expect(second).toEqual({ secret: first.secret, file, created: false });
  });

  it('reads a secret written by hand, trimmed of its line break', () => {
    const secret = 'h'.repeat(10) + 'Q4Zr7XhN0vJm2bYt9KcW1sLd8FpGe5UaTnR3';
    keptSecret(dataDir, 32);
    writeFileSync(path.join(dataDir, 'jwt-secret'), `${secret}\n`);
    expect(keptSecret(dataDir, 32).secret).toBe(secret);
  });

  it('refuses an empty or short file rather than signing with it', () => {
    keptSecret(dataDir, 32);
    writeFileSync(path.join(dataDir, 'jwt-secret'), 'short\n');
    expect(() => keptSecret(dataDir, 32)).toThrow(/jwt-secret.*32 bytes/);
  });
});
