// First: the date formats that Nest and others build as their modules load wait for a first use.
import { restoreDateTimeFormat } from './infra/runtime/date-time-formats-on-first-use.js';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { AppModule } from './app.module.js';
import { loadAppConfig } from './config/app-config.js';
import { createApp } from './http-app.js';
import { oneLine, StartupLogger } from './infra/telemetry/startup-logger.js';
import { logStartupBanner } from './startup-banner.js';
import { checkTokenSigning } from './startup-self-check.js';

restoreDateTimeFormat();

async function bootstrap(): Promise<void> {
  // JSON from the first line: Nest's own logger (coloured, with stacks) is never used. Lines
  // logged before the service's logger exists wait for it, so that every line has its format.
  Logger.overrideLogger(startupLogger);
  Logger.attachBuffer();
  const config = loadAppConfig();
  const app = await createApp(AppModule, config, startupLogger);
  await checkTokenSigning(app);
  await app.listen(config.http.port, config.http.host);
  await logStartupBanner(app, config);
}

const startupLogger = new StartupLogger();

bootstrap().catch((error: unknown) => {
  Logger.flush();
  // One JSON line: configuration errors carry their own clear message, anything else its message.
  Logger.overrideLogger(startupLogger);
  new Logger('Startup').fatal(`Failed to start: ${oneLine(error)}`);
  process.exit(1);
});
