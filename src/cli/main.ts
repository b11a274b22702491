import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliHelpModule, CliModule, MIGRATION_COMMANDS, MigrationCliModule } from './cli.module.js';
import { CliLogger, cliVersion, oneLineFailure } from './cli-output.js';

/** What only lists or describes the commands: it must read no configuration and open no database. */
const HELP_ARGUMENTS = new Set(['-h', '--help', '-V', '--version']);

function moduleFor(args: string[]): unknown {
  if (args.length === 0 || args[0] === 'help' || args.some((arg) => HELP_ARGUMENTS.has(arg))) return CliHelpModule;
  return MIGRATION_COMMANDS.has(args[0] ?? '') ? MigrationCliModule : CliModule;
}

/** Administrative commands: `npm run cli -- <command>` (`node dist/src/cli/main.js <command>`); `--help` lists them. */
async function main(): Promise<void> {
  // No command: the list of commands, on standard output, as `--help` gives it.
  if (process.argv.length <= 2) process.argv.push('--help');
  await CommandFactory.run(moduleFor(process.argv.slice(2)) as never, {
    logger: new CliLogger(),
    cliName: 'cli',
    version: cliVersion(),
    // A start-up failure (the database unreachable or locked) comes back here as one line,
    // instead of Nest's exception zone printing it with its stack and exiting.
    ...({ abortOnError: false } as object),
    // Commander has already written its own one-line message (unknown command or option); `--help`
    // and `--version` come through here too, and are not failures.
    errorHandler: (error) => {
      const code = (error as { code?: string }).code ?? '';
      if (['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(code)) process.exit(0);
      if (!code.startsWith('commander.')) console.error(oneLineFailure(error));
      process.exit(1);
    },
    // A command's own failure: its message is the one line; the exit status says it failed.
    serviceErrorHandler: (error) => {
      console.error(oneLineFailure(error));
      process.exit(1);
    },
  });
}

main().catch((error: unknown) => {
  console.error(oneLineFailure(error));
  process.exit(1);
});
