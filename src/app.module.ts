import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { LibraryAuthGuard } from '@auth-rbac/nest-guard/internal';
import { CookieOriginGuard } from './auth/cookie-origin.guard.js';
import { AllExceptionsFilter } from './common/all-exceptions.filter.js';
import { EnvelopeInterceptor } from './common/envelope.interceptor.js';
import { AppValidationPipe } from './common/validation.pipe.js';
import { AccountModule } from './account/account.module.js';
import { SecondFactorEnrolmentGuard } from './account/second-factor-enrolment.guard.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { IntrospectionModule } from './introspection/introspection.module.js';
import { OAuthModule } from './oauth/oauth.module.js';
import { ServiceAuthGuardModule } from './core/principal/service-guard.js';
import { PersonOnlyGuard } from './core/clients/person-only.guard.js';
import { AppConfig } from './config/app-config.js';
import { AppConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { FirstStartSeeder, SeedModule } from './core/seeds/seed.module.js';
import { HealthModule } from './health/health.module.js';
import { ConsolePageModule } from './console-page/console-page.module.js';
import { ContentsModule } from './contents/contents.module.js';
import { LimitsModule } from './limits/limits.module.js';
import { RateLimitGuard } from './limits/rate-limit.guard.js';
import { LoggingModule } from './logging/logging.module.js';
import { MetricsModule } from './metrics-endpoint/metrics.module.js';
import { OtpModule } from './otp/otp.module.js';
import { RbacModule } from './rbac/rbac.module.js';
import { ResetPageModule } from './reset-page/reset-page.module.js';
import { PasskeyPageModule } from './passkey-page/passkey-page.module.js';
import { SettingsModule } from './settings/settings.module.js';
import { UserAdministrationModule } from './users/user-administration.module.js';
import { RedisModule } from './redis/redis.module.js';

@Module({
  imports: [
    AppConfigModule,
    LoggingModule,
    DatabaseModule,
    RedisModule,
    AuditModule,
    LimitsModule,
    SeedModule,
    HealthModule,
    AuthModule,
    ServiceAuthGuardModule,
    IntrospectionModule,
    OAuthModule,
    OtpModule,
    RbacModule,
    UserAdministrationModule,
    SettingsModule,
    ContentsModule,
    AccountModule,
    MetricsModule,
    ResetPageModule,
    PasskeyPageModule,
    ConsolePageModule,
  ],
  providers: [
    {
      provide: APP_PIPE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new AppValidationPipe(config.defaultPhoneRegion),
    },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    // In this order: how often (before any work, so floods of bad tokens count too), who is calling, then may they.
    // First of all: a cross-origin write riding on a cookie is refused before it costs anything.
    { provide: APP_GUARD, useClass: CookieOriginGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    // Who is calling, then may they: the guard package's one guard does both.
    { provide: APP_GUARD, useExisting: LibraryAuthGuard },
    // A service token may call routes guarded by permissions, never those that act for a person.
    { provide: APP_GUARD, useClass: PersonOnlyGuard },
    // After the caller is known: REQUIRE_2FA_FOR_PRIVILEGED confines an account without a second factor.
    { provide: APP_GUARD, useClass: SecondFactorEnrolmentGuard },
    FirstStartSeeder,
  ],
})
export class AppModule {}
