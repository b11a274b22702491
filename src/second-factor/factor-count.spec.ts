import { requiredSecondFactor, type FactorFacts } from './factor-count.js';

const both = { emailPassword: true, mobileOtp: true };
const account = (facts: Partial<FactorFacts>): FactorFacts => ({
  hasTotp: false,
  hasPasskey: false,
  mobile: '+4915112345678',
  privileged: false,
  loginMethods: both,
  ...facts,
});

describe('requiredSecondFactor', () => {
  it('gives an ordinary account tokens from one factor', () => {
    expect(requiredSecondFactor(account({}), 'pwd')).toEqual({ kind: 'none' });
    expect(requiredSecondFactor(account({}), 'sms')).toEqual({ kind: 'none' });
  });

  it('asks an account with an app for the second factor whatever the first', () => {
    expect(requiredSecondFactor(account({ hasTotp: true }), 'pwd')).toEqual({
      kind: 'challenge',
      methods: ['totp', 'sms', 'recovery'],
    });
    // An SMS sign-in is never completed by another SMS.
    expect(requiredSecondFactor(account({ hasTotp: true }), 'sms')).toEqual({
      kind: 'challenge',
      methods: ['totp', 'recovery'],
    });
    expect(requiredSecondFactor(account({ hasTotp: true, mobile: null }), 'pwd')).toEqual({
      kind: 'challenge',
      methods: ['totp', 'recovery'],
    });
    expect(
      requiredSecondFactor(account({ hasTotp: true, loginMethods: { emailPassword: true, mobileOtp: false } }), 'pwd'),
    ).toEqual({ kind: 'challenge', methods: ['totp', 'recovery'] });
  });

  it('completes a privileged password sign-in with an SMS, and refuses a privileged SMS sign-in', () => {
    expect(requiredSecondFactor(account({ privileged: true }), 'pwd')).toEqual({ kind: 'challenge', methods: ['sms'] });
    expect(requiredSecondFactor(account({ privileged: true }), 'sms')).toEqual({ kind: 'refused' });
    expect(requiredSecondFactor(account({ privileged: true, mobile: null }), 'pwd')).toEqual({ kind: 'none' });
    expect(
      requiredSecondFactor(
        account({ privileged: true, loginMethods: { emailPassword: false, mobileOtp: true } }),
        'sms',
      ),
    ).toEqual({ kind: 'none' });
  });

  it('asks an account with a passkey for it after a password or an SMS sign-in, before the app and SMS', () => {
    expect(requiredSecondFactor(account({ hasPasskey: true }), 'pwd')).toEqual({
      kind: 'challenge',
      methods: ['passkey', 'sms'],
    });
    expect(requiredSecondFactor(account({ hasPasskey: true, hasTotp: true }), 'pwd')).toEqual({
      kind: 'challenge',
      methods: ['passkey', 'totp', 'sms', 'recovery'],
    });
    expect(requiredSecondFactor(account({ hasPasskey: true, mobile: null }), 'pwd')).toEqual({
      kind: 'challenge',
      methods: ['passkey'],
    });
    expect(requiredSecondFactor(account({ hasPasskey: true }), 'sms')).toEqual({
      kind: 'challenge',
      methods: ['passkey'],
    });
  });

  it('asks nothing more of a passkey sign-in (user verification: two factors), privileged or not', () => {
    expect(requiredSecondFactor(account({ hasPasskey: true, privileged: true, hasTotp: true }), 'hwk')).toEqual({
      kind: 'none',
    });
  });
});
