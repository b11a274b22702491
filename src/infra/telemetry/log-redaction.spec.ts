import { isSecretKey, REDACTED, redactSecrets, redactUrl } from './log-redaction.js';

describe('log redaction', () => {
  it.each([
    'password',
    'password_confirmation',
    'passwordHash',
    'new_password',
    'access_token',
    'refreshToken',
    'temp_token',
    'token',
    'otp',
    'otp_code',
    'code',
    'authorization',
    'Cookie',
    'set-cookie',
    'jwt_secret',
    'x-api-key',
  ])('treats %s as a secret', (key) => expect(isSecretKey(key)).toBe(true));

  it.each(['statusCode', 'email', 'name', 'mobile', 'reqId', 'context', 'msg', 'user_id', 'method', 'url'])(
    'keeps %s',
    (key) => expect(isSecretKey(key)).toBe(false),
  );

  it('censors secret keys at any depth, in arrays too, without changing the original', () => {
    const original = {
      email: 'a@example.com',
      password: 'hunter22-hunter22',
      nested: { deeper: { refresh_token: 'r.t.x', keep: 1 }, list: [{ otp: '123456', id: 'x' }] },
      res: { statusCode: 401 },
    };
    expect(redactSecrets(original)).toEqual({
      email: 'a@example.com',
      password: REDACTED,
      nested: { deeper: { refresh_token: REDACTED, keep: 1 }, list: [{ otp: REDACTED, id: 'x' }] },
      res: { statusCode: 401 },
    });
    expect(original.password).toBe('hunter22-hunter22');
  });

  it('survives cycles and leaves errors and class instances to their own serializers', () => {
    const cyclic: Record<string, unknown> = { token: 'x' };
    cyclic.self = cyclic;
    const error = new Error('boom');
    const date = new Date(0);
    const result = redactSecrets({ cyclic, error, date });
    expect(result.cyclic).toMatchObject({ token: REDACTED });
    expect(result.error).toBe(error);
    expect(result.date).toBe(date);
  });

  it('censors secret query parameters in a URL and leaves other URLs alone', () => {
    expect(redactUrl('/api/auth/reset-password?token=abc&lang=en')).toBe(
      '/api/auth/reset-password?token=%5BRedacted%5D&lang=en',
    );
    expect(redactUrl('/api/admin/users?page=2&search=ann')).toBe('/api/admin/users?page=2&search=ann');
    expect(redactUrl('/health')).toBe('/health');
  });
});
