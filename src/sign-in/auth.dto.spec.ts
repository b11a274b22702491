import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { LoginDto, RefreshDto, RegisterDto } from './auth.dto.js';

/** As the global validation pipe does it: transform, then validate refusing unknown fields. */
function invalidFields<T extends object>(dto: new () => T, body: Record<string, unknown>): string[] {
  const instance = plainToInstance(dto, body);
  return validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true })
    .map((error) => error.property)
    .sort();
}

const PASSWORD = 'Plum-Orbit-Lantern-42';

describe('LoginDto: exactly one of email and mobile', () => {
  it('accepts email alone and mobile alone', () => {
    expect(invalidFields(LoginDto, { email: 'a@example.com', password: PASSWORD })).toEqual([]);
    expect(invalidFields(LoginDto, { mobile: '+44 7911 123456', password: PASSWORD })).toEqual([]);
  });

  it('refuses both together', () => {
    expect(invalidFields(LoginDto, { email: 'a@example.com', mobile: '+447911123456', password: PASSWORD })).toEqual([
      'mobile',
    ]);
  });

  it('refuses neither', () => {
    expect(invalidFields(LoginDto, { password: PASSWORD }).length).toBeGreaterThan(0);
  });

  it('normalises what it accepts', () => {
    const dto = plainToInstance(LoginDto, { email: '  A@Example.COM ', password: PASSWORD });
    expect(dto.email).toBe('a@example.com');
    expect(plainToInstance(LoginDto, { mobile: '+44 (7911) 123-456', password: PASSWORD }).mobile).toBe(
      '+447911123456',
    );
  });
});

describe('RegisterDto', () => {
  const body = { name: 'Ada', email: 'ada@example.com', password: PASSWORD, password_confirmation: PASSWORD };

  it('accepts a body without mobile', () => {
    expect(invalidFields(RegisterDto, body)).toEqual([]);
  });

  it('refuses null as mobile: optional means absent, not null', () => {
    expect(invalidFields(RegisterDto, { ...body, mobile: null })).toEqual(['mobile']);
  });

  it.each([['1234567'], ['1234567890123456'], ['+44 79 ABC 1234']])('refuses the mobile %j', (mobile) => {
    expect(invalidFields(RegisterDto, { ...body, mobile })).toEqual(['mobile']);
  });
});

describe('RefreshDto', () => {
  it('accepts an absent token (the cookie is used then) and a string', () => {
    expect(invalidFields(RefreshDto, {})).toEqual([]);
    expect(invalidFields(RefreshDto, { refresh_token: 'a.b.c' })).toEqual([]);
  });

  it('refuses null, empty and non-string tokens', () => {
    for (const refresh_token of [null, '', 42])
      expect(invalidFields(RefreshDto, { refresh_token })).toEqual(['refresh_token']);
  });
});
