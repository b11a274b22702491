/**
 * How a session's holder proved presence, as RFC 8176 Authentication Method Reference values:
 * `pwd` a password, `otp` an authenticator-app or recovery code, `sms` a code sent by SMS, `hwk`
 * a passkey, `user` the passkey verified its user (PIN or biometrics), `fed` a sign-in at an
 * upstream identity provider (one factor, whatever the upstream asked), and `mfa` when two
 * factors were used. The first entry is the first factor.
 */
export type AuthenticationMethod = 'pwd' | 'otp' | 'sms' | 'hwk' | 'user' | 'fed' | 'mfa';

/** A proof of presence: when (the tokens' `auth_time`) and how (their `amr`). */
export interface Authentication {
  time: Date;
  methods: AuthenticationMethod[];
}

/** A sign-in with one factor, now. */
export function oneFactor(method: Exclude<AuthenticationMethod, 'mfa'>): Authentication {
  return { time: new Date(), methods: [method] };
}

/** A passkey that verified its user, now: something held and something known or inherent, two factors. */
export function userVerifyingPasskey(): Authentication {
  return { time: new Date(), methods: ['hwk', 'user', 'mfa'] };
}

/** A sign-in with a first and a second factor, now. */
export function twoFactors(
  first: Exclude<AuthenticationMethod, 'mfa'>,
  second: Exclude<AuthenticationMethod, 'mfa'>,
): Authentication {
  return { time: new Date(), methods: [first, second, 'mfa'] };
}

/**
 * What a re-authentication inside a session leaves the session with. A proof of a second factor
 * (`otp`, `sms`, `hwk`) in a two-factor session, other than the factor that opened it, keeps the
 * session two-factor (the first factor was proved at its sign-in, a second one just now). Any
 * other proof stands alone, a password included: a password re-authentication must not vouch
 * for a second factor it did not show.
 */
export function afterReauthentication(
  previous: readonly string[],
  proof: Exclude<AuthenticationMethod, 'mfa'>,
): Authentication {
  const first = previous[0];
  if (previous.includes('mfa') && proof !== 'pwd' && isMethod(first) && first !== 'mfa' && first !== proof) {
    return twoFactors(first, proof);
  }
  return oneFactor(proof);
}

/** The `amr` a stored session row carries, keeping only values this service issues. */
export function methodsOf(stored: readonly string[] | null | undefined): AuthenticationMethod[] {
  return (stored ?? []).filter(isMethod);
}

/** `auth_time`: seconds since the epoch, as OpenID Connect writes it. */
export function epochSeconds(time: Date): number {
  return Math.floor(time.getTime() / 1000);
}

function isMethod(value: unknown): value is AuthenticationMethod {
  return (
    value === 'pwd' ||
    value === 'otp' ||
    value === 'sms' ||
    value === 'hwk' ||
    value === 'user' ||
    value === 'fed' ||
    value === 'mfa'
  );
}
