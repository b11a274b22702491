import type { CountryCode, MetadataJson } from 'libphonenumber-js/core';
import { createRequire } from 'node:module';
import { domainToASCII } from 'node:url';

// libphonenumber-js's CommonJS build, which class-validator (its phone-number rules) loads in every
// process: importing the ES module build would hold a second copy of the library (1.7 MB of heap).
// The core API with the small metadata, each by package path.
const require = createRequire(import.meta.url);
const { getCountries, isSupportedCountry, parsePhoneNumberFromString } =
  require('libphonenumber-js/core') as typeof import('libphonenumber-js/core');
const metadata = require('libphonenumber-js/min/metadata') as MetadataJson;

/**
 * Identity normalisation: one person, one account. Every email, mobile, name and password that
 * reaches the service goes through these pure functions, at the edge (DTO transforms and
 * validators), before it is stored, compared or looked up.
 */

/** Surrounding white space off a string; anything else (a wrong type, for validation to refuse) as it is. */
export const trimIfString = (value: unknown): unknown => (typeof value === 'string' ? value.trim() : value);

/** Unicode control (Cc) or format (Cf) characters: invisible, so two addresses would look alike. */
const CONTROL_OR_FORMAT = /[\p{Cc}\p{Cf}]/u;

/**
 * Emails: NFKC (so a full-width `ａ` or the ligature `ﬁ` is the letter a user means), trimmed,
 * lower-cased, and the domain in its ASCII form (UTS #46, as `url.domainToASCII` gives it), so
 * `exämple.com` and `xn--exmple-cua.com` are one domain. A domain UTS #46 refuses is kept as it
 * is, for validation to refuse.
 */
export function normalizeEmail(email: string): string {
  const folded = email.normalize('NFKC').trim().toLowerCase();
  const at = folded.lastIndexOf('@');
  // UTS #46 would silently drop some format characters (U+00AD): keep them for validation to refuse.
  if (at < 0 || CONTROL_OR_FORMAT.test(folded)) return folded;
  const domain = folded.slice(at + 1);
  const ascii = domain === '' ? '' : domainToASCII(domain);
  return ascii === '' ? folded : `${folded.slice(0, at + 1)}${ascii}`;
}

/** An email holding a control or format character (e.g. U+200B) is refused, not silently cleaned. */
export function emailHasHiddenCharacters(email: string): boolean {
  return CONTROL_OR_FORMAT.test(email);
}

/** Control characters, and the bidirectional overrides and isolates that reorder displayed text. */
const NAME_FORBIDDEN = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/**
 * A name may hold any letters, including zero-width (non-)joiners (U+200C, U+200D) that some
 * scripts need, but no control character and no bidirectional override or isolate, which could
 * make a name display as something else (in an admin list, a mail, a log line).
 */
export function isAcceptableName(name: string): boolean {
  return !NAME_FORBIDDEN.test(name);
}

/** The specification's lengths of a mobile, counted after normalisation with the `+`. */
export const MOBILE_MIN_LENGTH = 8;
export const MOBILE_MAX_LENGTH = 15;

/** Separators people type inside a phone number. */
const PHONE_SEPARATORS = /[\s\-.()]/g;

/**
 * Mobiles: `+CC...` and `00CC...` are one number, stored in E.164 (`+4915112345678`) after
 * libphonenumber-js has judged it valid. A number without a country prefix is read in
 * `region` (DEFAULT_PHONE_REGION) when one is given, else kept as its 8 to 15 digits.
 * Returns null for anything that is not such a number.
 */
export function normalizeMobile(mobile: string, region?: string): string | null {
  const typed = mobile.normalize('NFKC').trim().replace(PHONE_SEPARATORS, '');
  // Digits only: libphonenumber would otherwise read letters as keypad digits (1-800-FLOWERS).
  if (!/^\+?\d+$/.test(typed)) return null;
  const international = typed.startsWith('+') ? typed : typed.startsWith('00') ? `+${typed.slice(2)}` : null;
  if (international === null && region === undefined) return /^\d{8,15}$/.test(typed) ? typed : null;
  const parsed =
    international === null
      ? parsePhoneNumberFromString(typed, region as CountryCode, metadata)
      : parsePhoneNumberFromString(international, metadata);
  return parsed?.isValid() ? parsed.number : null;
}

/** True for an ISO 3166-1 alpha-2 region that libphonenumber-js knows (DEFAULT_PHONE_REGION). */
export const isPhoneRegion = (region: string): boolean => isSupportedCountry(region as CountryCode, metadata);

/** The regions DEFAULT_PHONE_REGION may name. */
export const phoneRegions = (): string[] => getCountries(metadata);

/**
 * Passwords are compared in NFKC, so one typed composed (`é`) or decomposed (`e` + U+0301), or
 * in full-width letters, is one password (NIST SP 800-63B §5.1.1.2).
 */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Code points, not UTF-16 units: length rules count what the user typed. */
export function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** White space and characters that show nothing (zero-width, format, ignorable, control). */
const INVISIBLE = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\u2800]*$/u;

/** A password of nothing visible (twelve spaces, twelve U+200B) is no secret at all. */
export function isOnlyInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}
