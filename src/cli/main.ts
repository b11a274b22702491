import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule, MIGRATION_COMMANDS, MigrationCliModule } from './cli.module.js';

/** Administrative commands: `npm run cli -- <command>` (`node dist/src/cli/main.js <command>`); `--help` lists them. */
async function main(): Promise<void> {
  const module = MIGRATION_COMMANDS.has(process.argv[2] ?? '') ? MigrationCliModule : CliModule;
  // The permissions module goes to standard output with nothing else on it: warnings stay quiet.
  const quiet = process.argv[2] === 'permissions:export';
  await CommandFactory.run(module, {
    logger: quiet ? ['error'] : ['error', 'warn'],
    // Commander has already written its own one-line message (unknown command or option); `--help`
    // and `--version` come through here too, and are not failures.
    errorHandler: (error) => {
      const code = (error as { code?: string }).code ?? '';
      if (['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(code)) process.exit(0);
      if (!code.startsWith('commander.')) console.error(error.message);
      process.exit(1);
    },
    // A command's own failure: its message is the one line; the exit status says it failed.
    serviceErrorHandler: (error) => {
      console.error(error.message);
      process.exit(1);
    },
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
