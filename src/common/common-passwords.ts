import { createRequire } from 'node:module';
import { normalizePassword } from './normalize.js';

// Mozilla's list of the 50,000 most common passwords (fxa-common-password-list), decoded once.
const commonPasswordList = createRequire(import.meta.url)('fxa-common-password-list') as {
  test(password: string): boolean;
};

/** True for a password on the bundled list of common passwords (in NFKC, compared case-insensitively too). */
export function isCommonPassword(password: string): boolean {
  const normalized = normalizePassword(password);
  return commonPasswordList.test(normalized) || commonPasswordList.test(normalized.toLowerCase());
}
