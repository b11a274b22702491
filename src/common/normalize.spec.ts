import {
  codePointLength,
  emailHasHiddenCharacters,
  isAcceptableName,
  isOnlyInvisible,
  isPhoneRegion,
  normalizeEmail,
  normalizeMobile,
  normalizePassword,
} from './normalize.js';

describe('normalizeEmail', () => {
  it.each([
    ['  Ada.Lovelace@Example.COM \t', 'ada.lovelace@example.com'],
    ['ＡＤＡ＠ＥＸＡＭＰＬＥ.ＣＯＭ', 'ada@example.com'],
    ['\uFB01le@example.com', 'file@example.com'],
    ['jose\u0301@example.com', 'jos\u00e9@example.com'],
    ['jos\u00e9@example.com', 'jos\u00e9@example.com'],
    ['ann@exämple.com', 'ann@xn--exmple-cua.com'],
    ['ann@EXÄMPLE.com', 'ann@xn--exmple-cua.com'],
    ['ann@xn--exmple-cua.com', 'ann@xn--exmple-cua.com'],
    ['no-at-sign', 'no-at-sign'],
    ['trailing@', 'trailing@'],
  ])('stores %j as %j', (typed, stored) => {
    expect(normalizeEmail(typed)).toBe(stored);
  });

  it('leaves a normalised address unchanged (idempotent)', () => {
    for (const typed of [' X@Y.Z ', 'ＡＤＡ＠exämple.com', 'jose\u0301@example.com']) {
      const once = normalizeEmail(typed);
      expect(normalizeEmail(once)).toBe(once);
    }
  });

  it.each([
    ['a\u200B@example.com', true],
    ['a@exam\u00ADple.com', true],
    ['a\u0007@example.com', true],
    ['a@example.com', false],
    ['jos\u00e9@xn--exmple-cua.com', false],
  ])('finds hidden characters in %j: %s', (email, hidden) => {
    expect(emailHasHiddenCharacters(normalizeEmail(email))).toBe(hidden);
  });
});

describe('normalizeMobile', () => {
  it.each([
    ['+4915112345678', undefined, '+4915112345678'],
    ['004915112345678', undefined, '+4915112345678'],
    ['+49 151 1234-5678', undefined, '+4915112345678'],
    ['0049 (151) 123.456.78', undefined, '+4915112345678'],
    ['015112345678', 'DE', '+4915112345678'],
    ['015112345678', undefined, '015112345678'],
    ['+44 7911 123456', undefined, '+447911123456'],
    ['07911 123456', 'GB', '+447911123456'],
    ['004915112345678', 'GB', '+4915112345678'],
    ['+１５１', undefined, null],
    ['  07911-123-456  ', undefined, '07911123456'],
  ])('stores %j (region %s) as %j', (typed, region, stored) => {
    expect(normalizeMobile(typed, region)).toBe(stored);
  });

  it.each([
    ['+4479123456789', undefined],
    ['+49 151', undefined],
    ['1234567', undefined],
    ['1234567890123456', undefined],
    ['+44 79ab 123456', undefined],
    ['1-800-FLOWERS', 'US'],
    ['44+79', undefined],
    ['0301', 'DE'],
    ['', undefined],
  ])('refuses %j (region %s)', (typed, region) => {
    expect(normalizeMobile(typed, region)).toBeNull();
  });

  it('maps every way of writing one number to the same value', () => {
    const forms = ['+44 7911 123456', '+44-7911-123456', '0044 7911 123456', '+44 (7911) 123.456', '+447911123456'];
    expect(new Set(forms.map((form) => normalizeMobile(form)))).toEqual(new Set(['+447911123456']));
  });

  it('is idempotent', () => {
    for (const [typed, region] of [
      ['004915112345678', undefined],
      ['015112345678', 'DE'],
      ['015112345678', undefined],
    ] as const) {
      const once = normalizeMobile(typed, region)!;
      expect(normalizeMobile(once, region)).toBe(once);
    }
  });

  it('knows ISO 3166 regions', () => {
    expect(isPhoneRegion('DE')).toBe(true);
    expect(isPhoneRegion('GB')).toBe(true);
    expect(isPhoneRegion('XX')).toBe(false);
    expect(isPhoneRegion('de')).toBe(false);
  });
});

describe('isAcceptableName', () => {
  it.each([
    ['Ada Lovelace', true],
    ['José Ñúñez', true],
    ['می\u200Cخواهم', true],
    ['👨\u200D👩\u200D👧', true],
    ['Ada\u202Eecalevol', false],
    ['Ada\u202A', false],
    ['Ada\u2066x\u2069', false],
    ['Ada\u0000', false],
    ['Ada\nLovelace', false],
    ['Ada\u0085', false],
  ])('%j: %s', (name, accepted) => {
    expect(isAcceptableName(name)).toBe(accepted);
  });
});

describe('passwords', () => {
  it.each([
    ['Caf\u00e9-Lantern-42', 'Cafe\u0301-Lantern-42'],
    ['Ｐｌｕｍ－Ｏｒｂｉｔ', 'Plum-Orbit'],
    ['\uFB01ne-password', 'fine-password'],
  ])('%j and %j are one password', (a, b) => {
    expect(normalizePassword(a)).toBe(normalizePassword(b));
  });

  it.each([
    ['12345678', 8],
    ['Cafe\u0301', 4],
    ['😀😀😀😀', 4],
  ])('counts code points of %j: %i', (text, length) => {
    expect(codePointLength(normalizePassword(text))).toBe(length);
  });

  it.each([
    [' '.repeat(12), true],
    ['\u200B'.repeat(12), true],
    ['\u3000\u00A0\t\u2060\uFEFF\u180E\u3164\u2800', true],
    ['  a         ', false],
    ['Plum-Orbit-Lantern-42', false],
  ])('%j is only invisible: %s', (text, invisible) => {
    expect(isOnlyInvisible(text)).toBe(invisible);
  });
});
