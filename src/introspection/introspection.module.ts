import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { TwoFactorModule } from '../core/second-factor/two-factor.module.js';
import { IntrospectionRequests } from './introspection-requests.js';
import { IntrospectionController } from './introspection.controller.js';
import { IntrospectionService } from './introspection.service.js';
import { ServiceClientsRepository } from './service-clients.repository.js';
import { ServiceClientsService } from './service-clients.service.js';

/** The introspection clients, for the endpoint and for `create-client`. */
@Module({
  providers: [ServiceClientsRepository, ServiceClientsService],
  exports: [ServiceClientsService],
})
export class ServiceClientsModule {}

/** Other services asking about tokens: POST /api/auth/introspect. */
@Module({
  imports: [LimitsModule, RbacCoreModule, ServiceClientsModule, TwoFactorModule],
  controllers: [IntrospectionController],
  providers: [IntrospectionRequests, IntrospectionService],
})
export class IntrospectionModule {}
