/**
 * The order of named things in an answer (a user's or member's roles, a role's permissions): by
 * UTF-16 code unit, as `Array.prototype.sort` orders strings and as the audit events list the same
 * names, so that an answer is the same on every host. `localeCompare` without a locale ordered them
 * by the process's default locale (the host's `LANG`), and built an ICU collator that pages in
 * about 2 MB of the node binary's collation data and keeps its caches for the life of the process.
 */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
