import { Command, CommandRunner } from 'nest-commander';
import { randomBytes, createPrivateKey, createPublicKey } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { publicVerificationKey, type TokenAlgorithm } from '@auth-rbac/nest-guard/internal';
import { generatePrivateKeyPem, previousKeysFileOf, privateKeyFileOf, writePrivateFile } from '../sessions/index.js';
import { AppConfig } from '../config/app-config.js';
import { IdTokenKeys } from '../provider/index.js';

/**
 * Rotates the token signing key. With a key file (JWT_PRIVATE_KEY_FILE, or the development key
 * under DATA_DIR) the new key replaces it and the old public key moves to the retired-keys file
 * beside it, which every start reads: old tokens keep verifying until they expire, and the JWKS
 * lists both. A key or secret given in the environment cannot be rewritten from here: the command
 * prints the new values to set instead. Restart the instances afterwards. The OpenID provider's
 * ID-token key (in the database) is rotated too, with no restart.
 */
@Command({
  name: 'rotate-keys',
  description: 'Rotate the JWT signing key; earlier tokens stay valid until they expire',
})
export class RotateKeysCommand extends CommandRunner {
  constructor(
    private readonly config: AppConfig,
    private readonly idTokenKeys: IdTokenKeys,
  ) {
    super();
  }

  async run(): Promise<void> {
    // The OpenID provider's ID-token key lives in the database, shared by every instance: the new
    // key signs within a minute everywhere, the old one stays in the JWKS until its tokens expire.
    const idTokenKid = await this.idTokenKeys.rotate();
    process.stdout.write(`New RS256 ID-token signing key ${idTokenKid}; the previous one stays in the JWKS.\n`);
    const { algorithm, privateKeyPem } = this.config.signing;
    if (algorithm === 'HS256') {
      // Without JWT_SECRET this process made up a secret of its own: no instance signs with it,
      // so there is nothing to rotate from and nothing meaningful to keep as a previous secret.
      if (this.config.jwt.secretWasGenerated) {
        throw new Error(
          'JWT_SECRET is not set, so there is no secret to rotate: set it to the secret the instances use (HS256), then run rotate-keys again.',
        );
      }
      // Only the secret retired now, stamped with the time: it verifies for REFRESH_TOKEN_EXPIRY more,
      // then nothing. Earlier secrets are not carried forward, so no leaked secret lives for ever.
      const previous = `${this.config.jwt.secret}@${Math.floor(Date.now() / 1000)}`;
      process.stdout.write(
        'HS256 secrets live in the environment. Set these on every instance, then restart them:\n' +
          `JWT_SECRET=${randomBytes(48).toString('base64url')}\nJWT_PREVIOUS_SECRETS=${previous}\n` +
          `(The retired secret verifies tokens for REFRESH_TOKEN_EXPIRY=${this.config.jwt.refreshTokenTtl} seconds; ` +
          'earlier secrets are dropped.)\n' +
          (this.config.dataKeys.fromJwtSecrets
            ? 'DATA_KEYS is unset, so secrets at rest are sealed under keys derived from JWT_SECRET: the retired secret ' +
              'still opens them. After the restart, run `rotate-data-key` before removing JWT_PREVIOUS_SECRETS, or set ' +
              'DATA_KEYS (docs/operations.md, "Keys").\n'
            : 'Secrets at rest are sealed under DATA_KEYS, which this rotation does not touch.\n'),
      );
      return;
    }
    const next = generatePrivateKeyPem(algorithm as Exclude<TokenAlgorithm, 'HS256'>);
    const nextKid = publicVerificationKey(createPrivateKey(next)).kid;
    if (privateKeyPem) {
      const oldPublic = createPublicKey(privateKeyPem).export({ format: 'pem', type: 'spki' }).toString();
      process.stdout.write(
        'JWT_PRIVATE_KEY is given in the environment. Set these on every instance, then restart them:\n' +
          `JWT_PRIVATE_KEY=${JSON.stringify(next.replace(/\n/g, '\\n'))}\n` +
          `JWT_PREVIOUS_PUBLIC_KEYS=${JSON.stringify((oldPublic + this.config.signing.previousPublicKeys.join('\n')).replace(/\n/g, '\\n'))}\n`,
      );
      return;
    }
    const file = privateKeyFileOf(this.config);
    if (existsSync(file)) {
      const oldPublic = createPublicKey(readFileSync(file, 'utf8')).export({ format: 'pem', type: 'spki' }).toString();
      appendFileSync(previousKeysFileOf(file), `# retired ${Date.now()}\n${oldPublic}`, { mode: 0o600 });
    }
    writePrivateFile(file, next);
    process.stdout.write(
      `New ${algorithm} signing key ${nextKid} written to ${file}. Restart the instances to sign with it.\n`,
    );
  }
}
