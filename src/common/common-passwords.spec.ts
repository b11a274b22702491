import { createRequire } from 'node:module';
import { isCommonPassword } from './common-passwords.js';

// The package's own check and its list, decoded as the package decodes it: the reference.
const require = createRequire(import.meta.url);
const reference = require('fxa-common-password-list') as { test(password: string): boolean };
const fromPackage = createRequire(require.resolve('fxa-common-password-list'));
const { Decoder } = (
  fromPackage('incremental-encoder') as { default: { Decoder: new () => { decode(lines: string[]): string[] } } }
).default;
const listed = new Decoder().decode((fromPackage('./encoded-passwords') as string).split('\n'));

describe('isCommonPassword against the package it comes from', () => {
  it('finds every one of the 50,000 passwords of the list, the first and the last included', () => {
    expect(listed).toHaveLength(50_000);
    const missed = listed.filter((password) => !isCommonPassword(password));
    expect(missed).toEqual([]);
  });

  it("answers as the package's own check for near misses of every 50th listed password", () => {
    const candidates = listed
      .filter((_, index) => index % 50 === 0)
      .flatMap((password) => [password.slice(0, -1), `${password}~`, ` ${password}`, `${password}0`, `0${password}`]);
    const differing = candidates.filter(
      (candidate) =>
        isCommonPassword(candidate) !== (reference.test(candidate) || reference.test(candidate.toLowerCase())),
    );
    expect(differing).toEqual([]);
  });

  it('finds no password made of two listed ones joined by a line feed, nor an empty one', () => {
    expect(isCommonPassword(`${listed[0]}\n${listed[1]}`)).toBe(false);
    expect(isCommonPassword(`${listed[listed.length - 2]}\n`)).toBe(false);
    expect(isCommonPassword('')).toBe(false);
  });
});
