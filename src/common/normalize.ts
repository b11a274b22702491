/** Emails are compared and stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Mobiles are stored as digits with an optional leading `+`: spaces, dashes, dots and
 * parentheses that people type are dropped, so one number cannot hold two accounts.
 */
export function normalizeMobile(mobile: string): string {
  return mobile.trim().replace(/[\s\-.()]/g, '');
}
