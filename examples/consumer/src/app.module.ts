import { Module } from '@nestjs/common';
import { AuthGuardModule } from '@auth-rbac/nest-guard';
import { ReportsController } from './reports.controller.js';

/** An example, so its configuration is read right here rather than through a config module. */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required.`);
  return value;
}

@Module({
  imports: [
    AuthGuardModule.forRoot({
      authUrl: required('AUTH_URL'),
      clientId: required('AUTH_CLIENT_ID'),
      clientSecret: required('AUTH_CLIENT_SECRET'),
      // Optional: by default the issuer is read from the auth service's discovery document.
      ...(process.env.AUTH_ISSUER ? { issuer: process.env.AUTH_ISSUER } : {}),
      ...(process.env.AUTH_CACHE_TTL_MS ? { cacheTtlMs: Number(process.env.AUTH_CACHE_TTL_MS) } : {}),
      ...(process.env.AUTH_TIMEOUT_MS ? { timeoutMs: Number(process.env.AUTH_TIMEOUT_MS) } : {}),
    }),
  ],
  controllers: [ReportsController],
})
export class AppModule {}
