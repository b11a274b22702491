import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The file in DATA_DIR that keeps the secret generated outside production (as docker-compose's `setup` does). */
export const KEPT_SECRET_FILE = 'jwt-secret';

/**
 * The JWT_SECRET of a configuration that sets none, outside production: generated once into
 * `DATA_DIR/jwt-secret` (mode 0600) and read at every later start, so tokens, sessions and every
 * secret sealed under it (authenticator apps, pending codes) survive a restart. Two processes
 * starting at once agree: the file is created exclusively, and the loser reads the winner's.
 */
export function keptSecret(dataDir: string, minBytes: number): { secret: string; file: string; created: boolean } {
  const file = path.join(dataDir, KEPT_SECRET_FILE);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, secret, { flag: 'wx', mode: 0o600 });
    return { secret, file, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const kept = readFileSync(file, 'utf8').trim();
  if (Buffer.byteLength(kept, 'utf8') < minBytes) {
    throw new Error(
      `${file} holds a secret under ${minBytes} bytes: delete the file (a new one is generated at the ` +
        'next start; earlier tokens and authenticator apps stop working) or set JWT_SECRET.',
    );
  }
  return { secret: kept, file, created: false };
}
