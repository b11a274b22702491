import { Module } from '@nestjs/common';
import { ClientsModule } from '../clients/index.js';
import { RbacModule } from '../rbac/index.js';
import { SessionsModule } from '../sessions/index.js';
import { ClientAuthentication } from './client-authentication.js';
import { ClientTokensRepository } from './client-tokens.repository.js';
import { ClientTokensService } from './client-tokens.service.js';
import { DiscoveryController } from './discovery.controller.js';
import { DiscoveryService } from './discovery.service.js';
import { OAuthClients } from './oauth-clients.js';
import { OAuthController } from './oauth.controller.js';
import { RevocationService } from './revocation.service.js';
import { TokenEndpointService } from './token-endpoint.service.js';
import { TokenGrants } from './token-grants.js';
import { UserInfoService } from './userinfo.service.js';

/** The standard protocols: discovery, the token endpoint (client credentials), revocation, userinfo, and service clients. */
@Module({
  imports: [SessionsModule, RbacModule, ClientsModule],
  controllers: [DiscoveryController, OAuthController],
  providers: [
    ClientAuthentication,
    ClientTokensRepository,
    ClientTokensService,
    DiscoveryService,
    OAuthClients,
    TokenEndpointService,
    TokenGrants,
    RevocationService,
    UserInfoService,
  ],
  exports: [ClientAuthentication, ClientTokensService, TokenGrants],
})
export class OidcModule {}
