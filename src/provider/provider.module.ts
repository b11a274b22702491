import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients/index.js';
import { IdentityModule } from '../identity/index.js';
import { OidcModule } from '../oidc/index.js';
import { RbacModule } from '../rbac/index.js';
import { SecondFactorModule } from '../second-factor/index.js';
import { SessionsModule } from '../sessions/index.js';
import { SignInModule } from '../sign-in/index.js';
import { ApplicationsController } from './applications.controller.js';
import { ApplicationsService } from './applications.service.js';
import { AuthorizationController } from './authorization.controller.js';
import { AuthorizationService } from './authorization.service.js';
import { BackchannelLogout } from './backchannel-logout.js';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { ClientRegistration } from './client-registration.js';
import { RegistrationController } from './registration.controller.js';
import { CodeExchangeService } from './code-exchange.service.js';
import { EndSessionService } from './end-session.service.js';
import { IdTokenKeys } from './id-token-keys.js';
import { IdTokens } from './id-tokens.js';
import { KeySealing } from './key-sealing.js';
import { OrganizationsModule } from '../organizations/index.js';
import { ProviderRepository } from './provider.repository.js';
import { RelyingParties } from './relying-parties.js';
import { ProviderSigningKeysRepository } from './signing-keys.repository.js';
import { UpstreamPagesController } from './upstream-pages.controller.js';
import { UpstreamPagesService } from './upstream-pages.service.js';
import { UpstreamModule } from '../upstream/index.js';

/** The OpenID provider: authorization, its pages, code exchange, ID tokens and their keys, consents. */
@Module({
  imports: [
    ClientsModule,
    SessionsModule,
    SignInModule,
    SecondFactorModule,
    OidcModule,
    IdentityModule,
    RbacModule,
    MessagingModule,
    OrganizationsModule,
    UpstreamModule,
  ],
  controllers: [AuthorizationController, ApplicationsController, RegistrationController, UpstreamPagesController],
  providers: [
    AuthorizationService,
    ApplicationsService,
    BackchannelLogout,
    ClientRegistration,
    CodeExchangeService,
    EndSessionService,
    IdTokenKeys,
    IdTokens,
    KeySealing,
    ProviderRepository,
    ProviderSigningKeysRepository,
    RelyingParties,
    UpstreamPagesService,
  ],
  exports: [IdTokenKeys],
})
export class ProviderModule {}
