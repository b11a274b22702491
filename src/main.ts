import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AppModule } from './app.module.js';
import { loadAppConfig } from './config/app-config.js';
import { createApp } from './http-app.js';
import { logStartupBanner } from './startup-banner.js';

async function bootstrap(): Promise<void> {
  // Configuration warnings wait for the service's logger, so that every line has its one format.
  Logger.attachBuffer();
  const config = loadAppConfig();
  const app = await createApp(AppModule, config);
  await app.listen(config.http.port, '0.0.0.0');
  await logStartupBanner(app, config);
}

bootstrap().catch((error: unknown) => {
  Logger.flush();
  // Configuration errors carry their own clear message; anything else gets its stack.
  const message = error instanceof Error && /Configuration|InvalidEnvironment/.test(error.name) ? error.message : error;
  console.error('Failed to start:', message);
  process.exit(1);
});
