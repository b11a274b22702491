import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { SecondFactorModule } from '../account/second-factor.module.js';
import { LimitsModule } from '../limits/limits.module.js';
import { MailModule } from '../mail/mail.module.js';
import { OtpCoreModule } from '../otp/otp-core.module.js';
import { TwoFactorService } from '../otp/two-factor.service.js';
import { RbacCoreModule } from '../rbac/rbac-core.module.js';
import { SettingsModule } from '../settings/settings.module.js';
import { IdentityChangeModule } from '../users/identity-change.module.js';
import { UsersModule } from '../users/users.module.js';
import { AccessTokenStrategy } from './access-token.strategy.js';
import { AuthController } from './auth.controller.js';
import { AuthRepositoriesModule } from './auth-repositories.module.js';
import { AuthService } from './auth.service.js';
import { JwtKey } from './jwt-key.js';
import { PasswordResetService } from './password-reset.service.js';
import { PasswordModule } from './password.module.js';
import { SessionService } from './session.service.js';
import { TokenService } from './token.service.js';

@Module({
  imports: [
    PassportModule,
    PasswordModule,
    UsersModule,
    AuthRepositoriesModule,
    IdentityChangeModule,
    MailModule,
    RbacCoreModule,
    SettingsModule,
    OtpCoreModule,
    LimitsModule,
    SecondFactorModule,
    JwtModule.registerAsync({
      extraProviders: [JwtKey],
      inject: [JwtKey],
      useFactory: (key: JwtKey) => ({
        secret: key.key,
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [
    JwtKey,
    TokenService,
    SessionService,
    AuthService,
    PasswordResetService,
    AccessTokenStrategy,
    // Lives with the password login, which challenges administrators through it.
    TwoFactorService,
  ],
  exports: [TokenService, SessionService, AuthService, TwoFactorService, UsersModule],
})
export class AuthModule {}
