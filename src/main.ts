import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AppModule } from './app.module.js';
import { loadAppConfig } from './config/app-config.js';
import { createApp } from './http-app.js';

async function bootstrap(): Promise<void> {
  const config = loadAppConfig();
  const app = await createApp(AppModule, config);
  await app.listen(config.http.port, '0.0.0.0');
  new Logger('Bootstrap').log(`Listening on ${(await app.getUrl()).replace('[::1]', 'localhost')} (${config.env})`);
}

bootstrap().catch((error: unknown) => {
  // Configuration errors carry their own clear message; anything else gets its stack.
  const message = error instanceof Error && /Configuration|InvalidEnvironment/.test(error.name) ? error.message : error;
  console.error('Failed to start:', message);
  process.exit(1);
});
