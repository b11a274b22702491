import type { SeedReport } from './seed.service.js';

/**
 * Generated seed passwords are shown to the operator exactly once, on standard output and
 * outside the application log, because they exist nowhere else.
 */
export function printGeneratedPasswords(report: SeedReport, write: (text: string) => void = (text) => process.stdout.write(text)): void {
  const generated = report.accountsCreated.filter((account) => account.generatedPassword);
  if (generated.length === 0) return;
  const lines = generated.map((account) => `  ${account.role.padEnd(6)} ${account.email}  password: ${account.generatedPassword}`);
  write(
    ['', 'Seeded accounts with generated passwords (shown only this once; change them after signing in):', ...lines, ''].join('\n') + '\n',
  );
}
