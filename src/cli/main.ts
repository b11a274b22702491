import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli.module.js';

/** Administrative commands: `node dist/src/cli/main.js seed|rotate-keys|create-client <id>` (`npm run seed`). */
async function main(): Promise<void> {
  await CommandFactory.run(CliModule, {
    logger: ['error', 'warn'],
    errorHandler: (error) => {
      console.error(error.message);
      process.exit(1);
    },
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
