import { validateSync } from 'class-validator';
import { isCommonPassword, IsNotCommonPassword, MatchesField } from './password-rules.js';

describe('isCommonPassword', () => {
  it.each(['password123', 'qwertyuiop', 'iloveyou1'])('finds %s on the bundled list', (password) => {
    expect(isCommonPassword(password)).toBe(true);
  });

  it('compares case-insensitively too', () => {
    expect(isCommonPassword('PASSWORD123')).toBe(true);
    expect(isCommonPassword('QwertyUiop')).toBe(true);
  });

  it.each(['Plum-Orbit-Lantern-42', 'correct horse battery staple 9'])('accepts the uncommon %s', (password) => {
    expect(isCommonPassword(password)).toBe(false);
  });
});

class PasswordForm {
  @IsNotCommonPassword()
  password: unknown;

  @MatchesField('password')
  password_confirmation: unknown;

  constructor(password: unknown, confirmation: unknown) {
    this.password = password;
    this.password_confirmation = confirmation;
  }
}

const failures = (form: PasswordForm) =>
  validateSync(form).map((error) => ({ field: error.property, constraints: Object.keys(error.constraints ?? {}) }));

describe('password validation decorators', () => {
  it('passes an uncommon password with a matching confirmation', () => {
    expect(failures(new PasswordForm('Plum-Orbit-Lantern-42', 'Plum-Orbit-Lantern-42'))).toEqual([]);
  });

  it('refuses a common password', () => {
    expect(failures(new PasswordForm('password123', 'password123'))).toEqual([
      { field: 'password', constraints: ['isNotCommonPassword'] },
    ]);
  });

  it('refuses a confirmation that differs, even only in case', () => {
    expect(failures(new PasswordForm('Plum-Orbit-Lantern-42', 'plum-orbit-lantern-42'))).toEqual([
      { field: 'password_confirmation', constraints: ['matchesField'] },
    ]);
  });

  it('refuses non-strings on both fields', () => {
    const result = failures(new PasswordForm(12345678, 12345678));
    expect(result).toEqual([
      { field: 'password', constraints: ['isNotCommonPassword'] },
      { field: 'password_confirmation', constraints: ['matchesField'] },
    ]);
  });

  it('names the compared field in the message', () => {
    const [error] = validateSync(new PasswordForm('Plum-Orbit-Lantern-42', 'other'));
    expect(error.constraints?.matchesField).toBe('password_confirmation must match password');
  });
});
