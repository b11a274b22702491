import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from './config/app-config.js';
import { DatabaseEndpoint } from './infra/database/database-endpoint.js';
import { SettingsService } from './settings/index.js';
import { AccessRepository } from './rbac/index.js';

/** Where a URL points, without its credentials. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

/**
 * A short start banner, so an operator sees at once what this process really runs with: the
 * address actually bound, the database, Redis, and the login methods with where each came from
 * (the stored settings win over AUTH_EMAIL_PASSWORD / AUTH_MOBILE_OTP once the database has them).
 */
export async function logStartupBanner(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const logger = new Logger('Startup');
  const bound = app.getHttpServer().address() as AddressInfo;
  const all = bound.address === '0.0.0.0' || bound.address === '::';
  const local = `http://${all ? '127.0.0.1' : bound.address}:${bound.port}`;
  logger.log(
    `Listening on ${local} (bound to ${bound.address}:${bound.port}${all ? ', every interface' : ''}; ${config.env})`,
  );

  const endpoint = app.get(DatabaseEndpoint);
  logger.log(
    endpoint.embedded
      ? `Database: embedded PostgreSQL (PGlite) in ${config.database.dataDir}; one process only`
      : `Database: PostgreSQL at ${withoutCredentials(endpoint.url)}`,
  );
  logger.log(
    config.redisUrl
      ? `Redis: ${withoutCredentials(config.redisUrl)} (shared limits, revocations, caches, outbox wake-ups)`
      : 'Redis: none (limits and caches are per instance; run one instance, or set REDIS_URL)',
  );

  const stored = await app.get(SettingsService).getLoginMethods();
  const describe = (name: string, variable: string, storedValue: boolean, envValue: boolean) =>
    storedValue === envValue
      ? `${name}=${storedValue}`
      : `${name}=${storedValue} (stored value wins over ${variable}=${envValue}; change it with PUT /api/admin/settings)`;
  logger.log(
    `Login methods: ${describe('email_password', 'AUTH_EMAIL_PASSWORD', stored.emailPassword, config.loginMethods.emailPassword)}, ` +
      `${describe('mobile_otp', 'AUTH_MOBILE_OTP', stored.mobileOtp, config.loginMethods.mobileOtp)}, ` +
      describe('email_code', 'AUTH_EMAIL_CODE', stored.emailCode, config.loginMethods.emailCode),
  );
  if (stored.emailPassword && stored.mobileOtp) {
    const unreachable = await app.get(AccessRepository).countPrivilegedWithoutMobile();
    if (unreachable > 0) {
      logger.warn(
        `${unreachable} administrator account(s) have no mobile: the second factor cannot apply to them ` +
          '(set one with PUT /api/admin/users/:id, or SEED_ADMIN_MOBILE before the first seeding)',
      );
    }
  }
  if (config.operations.docsEnabled) logger.log(`API documentation: ${local}/docs`);
}
