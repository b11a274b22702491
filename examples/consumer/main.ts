import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConsumerAppModule } from './app.module.js';

/** An example, so its configuration is read right here rather than through a config module. */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required.`);
  return value;
}

async function bootstrap(): Promise<void> {
  const module = ConsumerAppModule.register({
    secret: required('JWT_SECRET'),
    permissionsFrom: {
      url: required('AUTH_SERVICE_URL'),
      ...(process.env.AUTH_CACHE_TTL_MS ? { cacheTtlMs: Number(process.env.AUTH_CACHE_TTL_MS) } : {}),
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), { logger: ['error', 'warn', 'log'] });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3001), process.env.HOST ?? '0.0.0.0');
  new Logger('Consumer').log(`Listening on ${await app.getUrl()}`);
}

bootstrap().catch((error: unknown) => {
  console.error('Failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
