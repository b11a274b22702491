import type { AuthenticationMethod } from '../sessions/index.js';

/** The second factors a challenge can offer. */
export type SecondFactorMethod = 'passkey' | 'totp' | 'sms' | 'recovery';

/** The factor that opened a sign-in: a password, an SMS code, a passkey. */
export type FirstFactor = Exclude<AuthenticationMethod, 'mfa' | 'otp' | 'user'>;

/** What the rule needs to know of an account and of the login-method flags. */
export interface FactorFacts {
  /** An authenticator app is enrolled (with its recovery codes). */
  hasTotp: boolean;
  /** At least one passkey is registered. */
  hasPasskey: boolean;
  mobile: string | null;
  /** Privileged in the sense of the contract's "Privilege boundaries". */
  privileged: boolean;
  loginMethods: { emailPassword: boolean; mobileOtp: boolean };
}

export type SecondFactorRequirement =
  /** One factor is enough for this account: tokens now. */
  | { kind: 'none' }
  /** Tokens only after one of these second factors (in order of preference). */
  | { kind: 'challenge'; methods: SecondFactorMethod[] }
  /** One factor is not enough and this first factor cannot be completed by a second one. */
  | { kind: 'refused' };

/**
 * How many factors a sign-in needs, for every path that issues tokens (password, SMS code,
 * and the passkey and email-code sign-ins that call it with their own first factor). The one
 * rule (NIST SP 800-63B-4 §2.2): an account that holds a second factor never gets tokens from
 * one factor, and a factor never stands in for itself (an SMS sign-in is not completed by an SMS).
 *
 * - A passkey sign-in (with user verification): two factors already, nothing more.
 * - With a passkey or an authenticator app: the passkey, the app or a recovery code, and an SMS
 *   to the account's mobile when both login methods are on and the first factor was not already an SMS.
 * - Privileged, without an app, both login methods on: a password is completed by an SMS to
 *   the account's mobile (none: a password alone, the enrolment rule decides the rest); an SMS
 *   sign-in is refused (contract: one factor for administrators is LOGIN_METHOD_DISABLED).
 * - Anyone else: one factor.
 */
export function requiredSecondFactor(account: FactorFacts, firstFactor: FirstFactor): SecondFactorRequirement {
  // A passkey that verified its user (the only kind a passkey sign-in accepts) is two factors by itself.
  if (firstFactor === 'hwk') return { kind: 'none' };
  const bothMethods = account.loginMethods.emailPassword && account.loginMethods.mobileOtp;
  const smsAsSecond = account.mobile !== null && bothMethods && firstFactor !== 'sms';
  if (account.hasTotp || account.hasPasskey) {
    const methods: SecondFactorMethod[] = [];
    if (account.hasPasskey) methods.push('passkey');
    if (account.hasTotp) methods.push('totp');
    if (smsAsSecond) methods.push('sms');
    if (account.hasTotp) methods.push('recovery');
    return { kind: 'challenge', methods };
  }
  if (account.privileged && bothMethods) {
    if (firstFactor === 'sms') return { kind: 'refused' };
    if (smsAsSecond) return { kind: 'challenge', methods: ['sms'] };
  }
  return { kind: 'none' };
}

/** The RFC 8176 value a second factor adds to the session's `amr`. */
export function amrOfSecondFactor(method: SecondFactorMethod): 'otp' | 'sms' | 'hwk' {
  if (method === 'passkey') return 'hwk';
  return method === 'sms' ? 'sms' : 'otp';
}
