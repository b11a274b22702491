import { Module } from '@nestjs/common';
import { AuthGuardModule } from '@auth-rbac/nest-guard';
import { ExportsController } from './exports.controller.js';
import { InvoicesController } from './invoices.controller.js';
import { Invoices } from './invoices.js';
import { ReportsController } from './reports.controller.js';

/** An example, so its configuration is read right here rather than through a config module. */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required.`);
  return value;
}

const number = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
const flag = (name: string) => process.env[name] === 'true';

@Module({
  imports: [
    AuthGuardModule.forRoot({
      authUrl: required('AUTH_URL'),
      clientId: required('AUTH_CLIENT_ID'),
      clientSecret: required('AUTH_CLIENT_SECRET'),
      // Optional: by default the issuer is read from the auth service's discovery document.
      ...(process.env.AUTH_ISSUER ? { issuer: process.env.AUTH_ISSUER } : {}),
      // Only under HS256: the auth service's JWT_SECRET, to verify its tokens and events here.
      ...(process.env.AUTH_JWT_SECRET ? { secret: process.env.AUTH_JWT_SECRET } : {}),
      ...(process.env.AUTH_REVOCATION === 'introspection' ? { revocation: 'introspection' as const } : {}),
      cacheTtlMs: number('AUTH_CACHE_TTL_MS'),
      timeoutMs: number('AUTH_TIMEOUT_MS'),
      maxEventLagMs: number('AUTH_MAX_EVENT_LAG_MS'),
      failClosed: flag('AUTH_FAIL_CLOSED'),
      strictPermissions: flag('AUTH_STRICT_PERMISSIONS'),
      // Optional: publish RFC 9728 metadata, so an agent that meets a 401 finds the auth service.
      ...(process.env.AUTH_RESOURCE
        ? { protectedResource: { resource: process.env.AUTH_RESOURCE, scopes: ['reports'] } }
        : {}),
    }),
  ],
  // The exports route names a permission of its own, to show strictPermissions refusing to start.
  controllers: [ReportsController, InvoicesController, ...(flag('EXAMPLE_EXPORTS') ? [ExportsController] : [])],
  providers: [Invoices],
})
export class AppModule {}
