import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { LibraryAuthGuard } from '@auth-rbac/nest-guard/internal';
import { AppConfig } from './config/app-config.js';
import { AppConfigModule } from './config/config.module.js';
import { KeysModule } from './infra/keys/index.js';
import { DatabaseModule } from './infra/database/database.module.js';
import { RedisModule } from './infra/redis/redis.module.js';
import { LoggingModule } from './infra/telemetry/logging.module.js';
import { AccountModule } from './account/index.js';
import { AuditModule } from './audit/index.js';
import { ContentsModule } from './contents/index.js';
import { OrganizationsModule } from './organizations/index.js';
import { EmailCodeModule } from './email-code/index.js';
import { IntrospectionModule } from './introspection/index.js';
import { MobileOtpModule } from './mobile-otp/index.js';
import { ClientsModule } from './clients/index.js';
import { OidcModule } from './oidc/index.js';
import { ProviderModule } from './provider/index.js';
import { UpstreamModule } from './upstream/index.js';
import { OpsModule } from './ops/index.js';
import { PasswordResetModule } from './password-reset/index.js';
import { FirstStartSeeder, RbacModule } from './rbac/index.js';
import { SecondFactorModule } from './second-factor/index.js';
import { SignInModule } from './sign-in/index.js';
import { SettingsModule } from './settings/index.js';
import { SessionsModule } from './sessions/index.js';
import { UsersModule } from './users/index.js';
import { AdminListConcurrencyGuard } from './middleware/admin-list-concurrency.guard.js';
import { AllExceptionsFilter } from './middleware/all-exceptions.filter.js';
import { CookieOriginGuard } from './middleware/cookie-origin.guard.js';
import { EnvelopeInterceptor } from './middleware/envelope.interceptor.js';
import { LimitsModule } from './middleware/limits.module.js';
import { PersonOnlyGuard } from './middleware/person-only.guard.js';
import { RateLimitGuard } from './middleware/rate-limit.guard.js';
import { SecondFactorEnrolmentGuard } from './middleware/second-factor-enrolment.guard.js';
import { ServiceAuthGuardModule } from './middleware/service-guard.js';
import { AppValidationPipe } from './middleware/validation.pipe.js';

/**
 * The application: infrastructure, one module per capability, and the request pipeline. Every
 * global guard, interceptor, filter and pipe is registered here, in the order it runs.
 */
@Module({
  imports: [
    // Infrastructure.
    AppConfigModule,
    KeysModule,
    LoggingModule,
    DatabaseModule,
    RedisModule,
    // The pipeline's own providers: the throttler's options, the guard package configured.
    LimitsModule,
    ServiceAuthGuardModule,
    // Capabilities.
    AuditModule,
    SettingsModule,
    RbacModule,
    SessionsModule,
    SecondFactorModule,
    SignInModule,
    EmailCodeModule,
    MobileOtpModule,
    PasswordResetModule,
    AccountModule,
    UsersModule,
    ClientsModule,
    OidcModule,
    ProviderModule,
    UpstreamModule,
    IntrospectionModule,
    ContentsModule,
    OrganizationsModule,
    OpsModule,
  ],
  providers: [
    // Guards, in this order: how often (before any work, so floods of bad tokens count too), who
    // is calling, then may they. First of all, a cross-origin write riding on a cookie is refused
    // before it costs anything.
    { provide: APP_GUARD, useClass: CookieOriginGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    // Who is calling, then may they: the guard package's one guard does both.
    { provide: APP_GUARD, useExisting: LibraryAuthGuard },
    // A service token may call routes guarded by permissions, never those that act for a person.
    { provide: APP_GUARD, useClass: PersonOnlyGuard },
    // After the caller is known: REQUIRE_2FA_FOR_PRIVILEGED confines an account without a second factor.
    { provide: APP_GUARD, useClass: SecondFactorEnrolmentGuard },
    // Last, once every other guard has let the request through: the cap on a caller's concurrent
    // admin list requests.
    { provide: APP_GUARD, useClass: AdminListConcurrencyGuard },
    // The one interceptor: the `{success, data}` envelope.
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
    // Every body and parameter is validated; unknown fields are refused.
    {
      provide: APP_PIPE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new AppValidationPipe(config.defaultPhoneRegion),
    },
    // Every error leaves as `{success: false, error}`; anything unexpected as INTERNAL_ERROR; a
    // refusal by the privilege policy is audited on its way out.
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    FirstStartSeeder,
  ],
})
export class AppModule {}
