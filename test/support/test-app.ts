import type { LoggerService, LogLevel, ModuleMetadata } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module.js';
import { AppConfig } from '../../src/config/app-config.js';
import { APP_OPTIONS, configureHttpApp, createHttpAdapter, useStructuredLogs } from '../../src/http-app.js';
import { createTestConfig } from './test-config.js';
import { fileDatabase } from './test-database.js';

export interface TestAppOptions {
  /**
   * Variables over the test defaults; `undefined` removes one, so the service's default applies.
   * Without `DATABASE_URL`, the app runs on the test file's database.
   */
  env?: Record<string, string | undefined>;
  /** Extra controllers or providers, e.g. a route that throws, to test the HTTP layer. */
  extra?: Pick<ModuleMetadata, 'controllers' | 'providers'>;
  /**
   * The app's logger; by default only errors are printed. A LoggerService receives every level.
   * `'pino'` is the service's own JSON logger on standard output, with its request lines, as
   * `main.ts` sets it up.
   */
  logger?: LoggerService | LogLevel[] | 'pino';
}

/** The real application on a test database, configured exactly as `main.ts` configures it. */
export async function createTestApp(options: TestAppOptions = {}): Promise<NestFastifyApplication> {
  const env = { ...options.env };
  if (!('DATABASE_URL' in env)) env.DATABASE_URL = (await fileDatabase()).url;
  const config = createTestConfig(env);
  const moduleRef = await Test.createTestingModule({ imports: [AppModule], ...options.extra })
    .overrideProvider(AppConfig)
    .useValue(config)
    .compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(config), {
    ...APP_OPTIONS,
    ...(options.logger === 'pino' ? { bufferLogs: true } : { logger: options.logger ?? ['error'] }),
  });
  if (options.logger === 'pino') useStructuredLogs(app);
  refuseStatementsBesideTransactions(app.get(DataSource));
  await configureHttpApp(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

/**
 * Makes a statement sent outside a transaction's manager, while that transaction is open, throw.
 * The embedded database serves one connection at a time, so there such a statement waits for the
 * transaction and the transaction for it; on PostgreSQL it runs on a second connection and passes
 * unnoticed. Every test app refuses it, so a test on either database finds it.
 */
function refuseStatementsBesideTransactions(dataSource: DataSource): void {
  const inTransaction = new AsyncLocalStorage<true>();
  const transaction = dataSource.transaction.bind(dataSource) as (...args: unknown[]) => Promise<unknown>;
  dataSource.transaction = ((...args: unknown[]) => {
    const work = args.pop() as (manager: unknown) => Promise<unknown>;
    return transaction(...args, (manager: unknown) => inTransaction.run(true, () => work(manager)));
  }) as DataSource['transaction'];
  const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (mode) => {
    if (inTransaction.getStore())
      throw new Error("A statement outside the transaction's manager while the transaction is open");
    return createQueryRunner(mode);
  };
}
