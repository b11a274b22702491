import { Command, CommandRunner } from 'nest-commander';
import { AppConfig } from '../config/app-config.js';
import { Outbox } from '../infra/messaging/outbox.service.js';
import type { ResealReport } from '../infra/keys/index.js';
import { IdTokenKeys } from '../provider/index.js';
import { RecoveryCodesService, TotpService } from '../second-factor/index.js';
import { IdentityProvidersService } from '../upstream/index.js';

/**
 * Re-seals every secret at rest under the first key of the data key ring (DATA_KEYS, or the key
 * derived from JWT_SECRET when it is unset): authenticator-app secrets, the outbox's waiting
 * payloads, the provider's ID-token keys and upstream providers' client secrets. Afterwards an older key may be dropped from DATA_KEYS (or JWT_PREVIOUS_SECRETS), once
 * the one-time codes hashed under it have expired (OTP_EXPIRY). Recovery codes are Argon2id
 * hashes under no key; codes made before that still verify under the ring and are counted here.
 */
@Command({
  name: 'rotate-data-key',
  description: 'Re-seal every secret at rest under the first DATA_KEYS key, so older keys may be dropped',
})
export class RotateDataKeyCommand extends CommandRunner {
  constructor(
    private readonly config: AppConfig,
    private readonly totp: TotpService,
    private readonly outbox: Outbox,
    private readonly recoveryCodes: RecoveryCodesService,
    private readonly idTokenKeys: IdTokenKeys,
    private readonly identityProviders: IdentityProvidersService,
  ) {
    super();
  }

  async run(): Promise<void> {
    const apps = await this.totp.resealSecrets();
    const payloads = await this.outbox.resealPayloads();
    const signingKeys = await this.idTokenKeys.resealKeys();
    const upstreamSecrets = await this.identityProviders.resealSecrets();
    const keyed = await this.recoveryCodes.countKeyedCodeHolders();
    const source = this.config.dataKeys.fromJwtSecrets
      ? 'the key derived from JWT_SECRET (DATA_KEYS is unset)'
      : 'the first DATA_KEYS entry';
    process.stdout.write(
      `Sealed under ${source}:\n` +
        `  authenticator apps: ${line(apps)}\n` +
        `  outbox messages:    ${line(payloads)}\n` +
        `  ID-token keys:      ${line(signingKeys)}\n` +
        `  upstream secrets:   ${line(upstreamSecrets)}\n` +
        `Older keys may now be dropped from ${this.config.dataKeys.fromJwtSecrets ? 'JWT_PREVIOUS_SECRETS' : 'DATA_KEYS'} ` +
        `once one-time codes issued under them have expired (OTP_EXPIRY=${this.config.otp.ttl} seconds).\n`,
    );
    if (keyed > 0) {
      process.stdout.write(
        `${keyed} account(s) still hold recovery codes made before they were hashed with Argon2id: those codes ` +
          'verify under the ring until the key they were made under is dropped; the holders can make new ones ' +
          '(POST /api/account/recovery-codes).\n',
      );
    }
    const unreadable = apps.unreadable + payloads.unreadable + signingKeys.unreadable + upstreamSecrets.unreadable;
    if (unreadable > 0) {
      process.stderr.write(
        `${unreadable} value(s) open under no key of the ring (sealed under a key already dropped, or damaged): ` +
          'put that key back as a later DATA_KEYS entry and run rotate-data-key again.\n',
      );
      process.exitCode = 1;
    }
  }
}

function line(report: ResealReport): string {
  return `${report.resealed} re-sealed, ${report.current} already current, ${report.unreadable} unreadable`;
}
