import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SeedReport } from './seed.service.js';

/** The file under DATA_DIR that keeps generated seed passwords, readable by the service's user only. */
export const SEED_PASSWORDS_FILE = 'seed-passwords.txt';

/**
 * Generated seed passwords are shown to the operator exactly once, on standard output and
 * outside the application log, because they exist nowhere else.
 */
export function printGeneratedPasswords(
  report: SeedReport,
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
      'Seeded accounts with generated passwords (shown only this once; change them after signing in):',
      ...lines,
      '',
    ].join('\n') + '\n',
  );
}

/**
 * Printed passwords scroll away (or are lost when the server then fails to start), so they are
 * also appended to `${DATA_DIR}/seed-passwords.txt`, created with mode 0600 and kept at 0600.
 * Returns the file's path, or undefined when nothing was generated.
 */
export function saveGeneratedPasswords(
  report: SeedReport,
  dataDir: string,
  now: Date = new Date(),
): string | undefined {
  const generated = report.accountsCreated.filter((account) => account.generatedPassword);
  if (generated.length === 0) return undefined;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, SEED_PASSWORDS_FILE);
  const lines = generated.map(
    (account) =>
      `${now.toISOString()}  ${account.role.padEnd(6)} ${account.email}  password: ${account.generatedPassword}`,
  );
  writeFileSync(file, lines.join('\n') + '\n', { flag: 'a', mode: 0o600 });
  // An existing file keeps its mode on append: tighten it in case someone loosened it.
  chmodSync(file, 0o600);
  return file;
}

/** Prints the generated passwords and saves them under DATA_DIR, saying where. */
export function reportGeneratedPasswords(
  report: SeedReport,
  dataDir: string,
  write: (text: string) => void = (text) => process.stdout.write(text),
): void {
  printGeneratedPasswords(report, write);
  const file = saveGeneratedPasswords(report, dataDir);
  if (file) write(`Also written to ${file} (mode 0600); delete it once the passwords are changed.\n\n`);
}
