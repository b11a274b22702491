import type { AppConfig } from '../config/app-config.js';
import type { CodePurpose } from '../infra/database/entities/one-time-code.entity.js';

export type { CodePurpose };

/** What a purpose's codes are: where they go, who may ask for them, and which code stays live. */
interface PurposeFacts {
  /** How the code reaches its holder: `sms` and `email` codes share their recipient's budget. */
  channel: 'sms' | 'email';
  /**
   * Anyone can ask for it (a request needs no password): the cooldown and the per-address cap
   * hold. A second-factor code needs the password first and spends only the number's budget.
   */
  asked: boolean;
  /** One live code per recipient (a sign-in code) or per account (the rest). */
  oneLivePer: 'recipient' | 'account';
  /** Wrong answers carry over to the recipient's next code for LOCKOUT_SECONDS: asking anew buys no guesses. */
  inheritsAttempts: boolean;
  /**
   * The purpose's name in the code's keyed hash. The codes of the tables this one replaced were
   * hashed under these names; keeping them lets codes in flight at the migration still match.
   */
  digestLabel: string;
}

const PURPOSES: Record<CodePurpose, PurposeFacts> = {
  sms_sign_in: { channel: 'sms', asked: true, oneLivePer: 'recipient', inheritsAttempts: true, digestLabel: 'login' },
  second_factor: { channel: 'sms', asked: false, oneLivePer: 'account', inheritsAttempts: false, digestLabel: '2fa' },
  reauthentication: {
    channel: 'sms',
    asked: true,
    oneLivePer: 'account',
    inheritsAttempts: false,
    digestLabel: 'reauth',
  },
  mobile_change: {
    channel: 'sms',
    asked: true,
    oneLivePer: 'account',
    inheritsAttempts: false,
    digestLabel: 'mobile_change',
  },
  email_sign_in: {
    channel: 'email',
    asked: true,
    oneLivePer: 'recipient',
    inheritsAttempts: true,
    digestLabel: 'email',
  },
};

export function purposeFacts(purpose: CodePurpose): PurposeFacts {
  return PURPOSES[purpose];
}

/** The purposes whose codes go out on `channel`, and those of them anyone can ask for. */
export function purposesOf(channel: PurposeFacts['channel']): { all: CodePurpose[]; asked: CodePurpose[] } {
  const all = (Object.keys(PURPOSES) as CodePurpose[]).filter((purpose) => PURPOSES[purpose].channel === channel);
  return { all, asked: all.filter((purpose) => PURPOSES[purpose].asked) };
}

/** A purpose's settings, read from configuration (OTP_LENGTH, OTP_EXPIRY, OTP_MAX_ATTEMPTS). */
export interface CodeSettings {
  length: number;
  ttlSeconds: number;
  maxAttempts: number;
}

export function codeSettings(config: AppConfig, _purpose: CodePurpose): CodeSettings {
  return { length: config.otp.length, ttlSeconds: config.otp.ttl, maxAttempts: config.otp.maxAttempts };
}
