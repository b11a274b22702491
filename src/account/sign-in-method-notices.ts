import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { UsersRepository } from '../identity/index.js';
import { MailService } from '../infra/messaging/mail.service.js';

/** A way into the account that was added or removed. */
export type SignInMethodChange =
  | 'passkey-added'
  | 'passkey-removed'
  | 'app-added'
  | 'app-removed'
  | 'recovery-codes-made'
  | 'identity-linked'
  | 'identity-unlinked';

const WHAT: Record<SignInMethodChange, { subject: string; sentence: string }> = {
  'passkey-added': { subject: 'A passkey was added to your account', sentence: 'A passkey was added to your account' },
  'passkey-removed': {
    subject: 'A passkey was removed from your account',
    sentence: 'A passkey was removed from your account',
  },
  'app-added': {
    subject: 'An authenticator app was added to your account',
    sentence: 'An authenticator app was added to your account, with a new set of recovery codes',
  },
  'app-removed': {
    subject: 'The authenticator app was removed from your account',
    sentence: 'The authenticator app and its recovery codes were removed from your account',
  },
  'identity-linked': {
    subject: 'A sign-in with another provider was linked to your account',
    sentence: 'An identity at an outside sign-in provider was linked to your account, and can now sign in to it',
  },
  'identity-unlinked': {
    subject: 'A sign-in with another provider was removed from your account',
    sentence: 'An identity at an outside sign-in provider was unlinked from your account',
  },
  'recovery-codes-made': {
    subject: 'New recovery codes were made for your account',
    sentence: 'New recovery codes were made for your account, and the earlier ones no longer work',
  },
};

/**
 * Tells the holder, at the account's own address and through the outbox, that a way into the
 * account was added or removed (OWASP ASVS V6.3.7; GitHub's notice on every new factor): a token
 * stolen within the fresh-authentication window can add a factor, and this mail is how the holder
 * hears of it. Fixed text only: what changed and when, and how to end every session; never a
 * secret, a code, a name or anything else a user chose.
 */
@Injectable()
export class SignInMethodNotices {
  private readonly logger = new Logger('SignInMethodNotices');

  constructor(
    private readonly users: UsersRepository,
    private readonly mail: MailService,
    private readonly config: AppConfig,
  ) {}

  /** After the change has committed; a lost notice is logged, never the caller's failure. */
  async tell(userId: string, change: SignInMethodChange, at: Date = new Date()): Promise<void> {
    try {
      const profile = await this.users.findProfile(userId);
      if (!profile) return;
      const { subject, sentence } = WHAT[change];
      const when = `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
      await this.mail.send(
        {
          to: profile.email,
          subject,
          text:
            `${sentence} on ${when}.\n\n` +
            'If you did this, there is nothing to do.\n\n' +
            'If you did not, someone else may be signed in to your account. To end every session at once, ' +
            `reset your password: ask for a reset link for this address at ${this.config.http.appUrl} ` +
            '(POST /api/auth/forgot-password) and set a new password; a reset signs out every device. Signed in, ' +
            'you can also end every other session from your account (POST /api/account/sessions/revoke-others). ' +
            'Then remove the sign-in method you do not know, and contact your administrator.\n',
        },
        { kind: 'notice', userId },
      );
    } catch (error) {
      this.logger.error(`Sign-in method notice for user ${userId} could not be queued: ${(error as Error).message}`);
    }
  }
}
