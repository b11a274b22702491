import { Global, Module } from '@nestjs/common';
import { ConfigModule, registerAs } from '@nestjs/config';
import { AppConfig, loadAppConfig } from './app-config.js';

/** The validated configuration as a @nestjs/config namespace; injected by its class token. */
export const appConfigNamespace = registerAs('app', loadAppConfig);

@Global()
@Module({
  imports: [ConfigModule.forRoot({ ignoreEnvFile: true, cache: true, load: [appConfigNamespace] })],
  providers: [{ provide: AppConfig, inject: [appConfigNamespace.KEY], useFactory: (config: AppConfig) => config }],
  exports: [AppConfig],
})
export class AppConfigModule {}
