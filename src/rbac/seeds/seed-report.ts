import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SeedReport } from './seed.service.js';

/** The file under DATA_DIR that keeps the embedded database's generated seed passwords (mode 0600). */
export const SEED_PASSWORDS_FILE = 'seed-passwords.txt';

/** The database that was seeded: a server (DATABASE_URL) or the embedded one under DATA_DIR. */
export interface SeededDatabase {
  url?: string;
  dataDir: string;
}

/** The database named without its credentials: `postgres://host:port/name`, or the embedded one's folder. */
export function databaseLabel(database: SeededDatabase): string {
  if (!database.url) return `embedded PostgreSQL in ${database.dataDir}`;
  const url = new URL(database.url);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}

/**
 * Each database's passwords in a file of its own: the embedded database's `seed-passwords.txt`
 * never receives a server's. A server's file is named by its host, port and database name.
 */
export function seedPasswordsFile(database: SeededDatabase): string {
  if (!database.url) return path.join(database.dataDir, SEED_PASSWORDS_FILE);
  const url = new URL(database.url);
  const name = `${url.hostname}-${url.port || '5432'}-${url.pathname.replace(/^\//, '') || 'postgres'}`;
  return path.join(database.dataDir, `seed-passwords.${name.replace(/[^A-Za-z0-9._-]/g, '_')}.txt`);
}

/**
 * Generated seed passwords are shown to the operator exactly once, on standard output and
 * outside the application log, because they exist nowhere else.
 */
export function printGeneratedPasswords(
  report: SeedReport,
  database: SeededDatabase,
  write: (text: string) => void = (text) => process.stdout.write(text),
): void {
  const generated = report.accountsCreated.filter((account) => account.generatedPassword);
  if (generated.length === 0) return;
  const lines = generated.map(
    (account) => `  ${account.role.padEnd(6)} ${account.email}  password: ${account.generatedPassword}`,
  );
  write(
    [
      '',
      `Seeded accounts of ${databaseLabel(database)} with generated passwords (shown only this once; change them after signing in):`,
      ...lines,
      '',
    ].join('\n') + '\n',
  );
}

/**
 * Printed passwords scroll away (or are lost when the server then fails to start), so they are
 * also appended to the database's file under DATA_DIR (`seedPasswordsFile`), created with mode
 * 0600 and kept at 0600, each line labelled with its database. Returns the file's path, or
 * undefined when nothing was generated.
 */
export function saveGeneratedPasswords(
  report: SeedReport,
  database: SeededDatabase,
  now: Date = new Date(),
): string | undefined {
  const generated = report.accountsCreated.filter((account) => account.generatedPassword);
  if (generated.length === 0) return undefined;
  mkdirSync(database.dataDir, { recursive: true, mode: 0o700 });
  const file = seedPasswordsFile(database);
  const label = databaseLabel(database);
  const lines = generated.map(
    (account) =>
      `${now.toISOString()}  ${label}  ${account.role.padEnd(6)} ${account.email}  password: ${account.generatedPassword}`,
  );
  writeFileSync(file, lines.join('\n') + '\n', { flag: 'a', mode: 0o600 });
  // An existing file keeps its mode on append: tighten it in case someone loosened it.
  chmodSync(file, 0o600);
  return file;
}

/** Prints the generated passwords and saves them under DATA_DIR, saying where. */
export function reportGeneratedPasswords(
  report: SeedReport,
  database: SeededDatabase,
  write: (text: string) => void = (text) => process.stdout.write(text),
): void {
  printGeneratedPasswords(report, database, write);
  const file = saveGeneratedPasswords(report, database);
  if (file) write(`Also written to ${file} (mode 0600); delete it once the passwords are changed.\n\n`);
}
