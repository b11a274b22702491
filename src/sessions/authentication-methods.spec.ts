import { afterReauthentication, methodsOf } from './authentication-methods.js';

describe('afterReauthentication', () => {
  it('keeps a two-factor session two-factor when the proof is a second factor', () => {
    expect(afterReauthentication(['pwd', 'otp', 'mfa'], 'otp').methods).toEqual(['pwd', 'otp', 'mfa']);
    expect(afterReauthentication(['pwd', 'sms', 'mfa'], 'sms').methods).toEqual(['pwd', 'sms', 'mfa']);
    expect(afterReauthentication(['pwd', 'sms', 'mfa'], 'otp').methods).toEqual(['pwd', 'otp', 'mfa']);
    expect(afterReauthentication(['sms', 'otp', 'mfa'], 'otp').methods).toEqual(['sms', 'otp', 'mfa']);
  });

  it('lets a password, or the factor that opened the session, stand alone', () => {
    expect(afterReauthentication(['pwd', 'otp', 'mfa'], 'pwd').methods).toEqual(['pwd']);
    expect(afterReauthentication(['sms', 'otp', 'mfa'], 'pwd').methods).toEqual(['pwd']);
    expect(afterReauthentication(['sms', 'otp', 'mfa'], 'sms').methods).toEqual(['sms']);
  });

  it('never makes a one-factor session two-factor', () => {
    expect(afterReauthentication(['pwd'], 'otp').methods).toEqual(['otp']);
    expect(afterReauthentication([], 'sms').methods).toEqual(['sms']);
  });

  it('stamps the time of the proof', () => {
    const before = Date.now();
    expect(afterReauthentication(['pwd'], 'pwd').time.getTime()).toBeGreaterThanOrEqual(before);
  });
});

describe('methodsOf', () => {
  it('keeps only the values the service issues', () => {
    expect(methodsOf(['pwd', 'face', 'mfa'])).toEqual(['pwd', 'mfa']);
    expect(methodsOf(null)).toEqual([]);
  });
});
