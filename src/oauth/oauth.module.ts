import { Module } from '@nestjs/common';
import { AuditCoreModule } from '../core/audit/audit-core.module.js';
import { ClientsCoreModule } from '../core/clients/clients-core.module.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { SessionsModule } from '../core/sessions/sessions.module.js';
import { DiscoveryController } from './discovery.controller.js';
import { DiscoveryService } from './discovery.service.js';
import { OAuthClients } from './oauth-clients.js';
import { OAuthController } from './oauth.controller.js';
import { RevocationService } from './revocation.service.js';
import { TokenEndpointService } from './token-endpoint.service.js';
import { UserInfoService } from './userinfo.service.js';

/** Discovery, token, revocation and userinfo: the standard protocols for other software. */
@Module({
  imports: [ClientsCoreModule, SessionsModule, RbacCoreModule, AuditCoreModule],
  controllers: [DiscoveryController, OAuthController],
  providers: [DiscoveryService, OAuthClients, TokenEndpointService, RevocationService, UserInfoService],
})
export class OAuthModule {}
