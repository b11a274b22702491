import { normalizeEmail, normalizeMobile } from './normalize.js';

describe('normalizeEmail', () => {
  it('trims and lower-cases, so one address cannot hold two accounts', () => {
    expect(normalizeEmail('  Ada.Lovelace@Example.COM \t')).toBe('ada.lovelace@example.com');
  });

  it('leaves a normalised address unchanged (idempotent)', () => {
    const once = normalizeEmail(' X@Y.Z ');
    expect(normalizeEmail(once)).toBe(once);
  });
});

describe('normalizeMobile', () => {
  it.each([
    ['+44 7911 123456', '+447911123456'],
    ['+1 (555) 123-4567', '+15551234567'],
    ['0049.170.1234567', '00491701234567'],
    ['  07911-123-456  ', '07911123456'],
    ['+447911123456', '+447911123456'],
  ])('stores %j as %j', (typed, stored) => {
    expect(normalizeMobile(typed)).toBe(stored);
  });

  it('maps every way of writing one number to the same value', () => {
    const forms = ['+44 7911 123456', '+44-7911-123456', '+44 (7911) 123.456', '+447911123456'];
    expect(new Set(forms.map(normalizeMobile))).toEqual(new Set(['+447911123456']));
  });

  it('keeps characters it does not know, so validation can refuse them', () => {
    expect(normalizeMobile('+44 79ab')).toBe('+4479ab');
    expect(normalizeMobile('44+79')).toBe('44+79');
  });
});
