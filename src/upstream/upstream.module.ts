import { Module } from '@nestjs/common';
import { AccountModule } from '../account/index.js';
import { IdentityModule } from '../identity/index.js';
import { RbacModule } from '../rbac/index.js';
import { SecondFactorModule } from '../second-factor/index.js';
import { SessionsModule } from '../sessions/index.js';
import { SettingsModule } from '../settings/index.js';
import { AccountIdentitiesController } from './account-identities.controller.js';
import { AccountIdentitiesService } from './account-identities.service.js';
import { ClientSecrets } from './client-secrets.js';
import { IdentityProvidersController } from './identity-providers.controller.js';
import { IdentityProvidersService } from './identity-providers.service.js';
import { UpstreamClient } from './upstream-client.js';
import { UpstreamFlowsRepository } from './upstream-flows.repository.js';
import { UpstreamProvidersRepository } from './upstream-providers.repository.js';
import { UpstreamSignInService } from './upstream-sign-in.service.js';

/**
 * Upstream identity providers and linking: their administration, the service as their careful
 * client, the linking rules, and the holder's identities. The provider's sign-in pages (src/provider)
 * offer the buttons and carry the flow.
 */
@Module({
  imports: [AccountModule, IdentityModule, RbacModule, SecondFactorModule, SessionsModule, SettingsModule],
  controllers: [IdentityProvidersController, AccountIdentitiesController],
  providers: [
    AccountIdentitiesService,
    ClientSecrets,
    IdentityProvidersService,
    UpstreamClient,
    UpstreamFlowsRepository,
    UpstreamProvidersRepository,
    UpstreamSignInService,
  ],
  exports: [UpstreamSignInService, IdentityProvidersService],
})
export class UpstreamModule {}
