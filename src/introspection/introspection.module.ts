import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { TwoFactorModule } from '../core/second-factor/two-factor.module.js';
import { IntrospectionRequests } from './introspection-requests.js';
import { IntrospectionController } from './introspection.controller.js';
import { IntrospectionService } from './introspection.service.js';
import { SecurityEventsModule } from '../core/events/security-events.module.js';
import { SecurityEventFeed } from '../core/events/security-event-feed.js';
import { RolesModule } from '../core/roles/roles.module.js';
import { SessionsModule } from '../core/sessions/sessions.module.js';
import { KeysRotatedAnnouncer } from './keys-rotated.announcer.js';
import { PermissionNamesService } from './permission-names.service.js';
import { SecurityEventStream } from './security-event-stream.js';
import { SecurityEventsController } from './security-events.controller.js';
import { ServiceClientsRepository } from './service-clients.repository.js';
import { ServiceClientsService } from './service-clients.service.js';

/** The introspection clients, for the endpoint and for `create-client`. */
@Module({
  providers: [ServiceClientsRepository, ServiceClientsService],
  exports: [ServiceClientsService],
})
export class ServiceClientsModule {}

/**
 * Other services asking about tokens (POST /api/auth/introspect), following the security events
 * (GET /api/auth/events) and listing the permission names (GET /api/auth/permissions).
 */
@Module({
  imports: [
    LimitsModule,
    RbacCoreModule,
    ServiceClientsModule,
    TwoFactorModule,
    SecurityEventsModule,
    SessionsModule,
    RolesModule,
  ],
  controllers: [IntrospectionController, SecurityEventsController],
  providers: [
    IntrospectionRequests,
    IntrospectionService,
    SecurityEventFeed,
    SecurityEventStream,
    PermissionNamesService,
    KeysRotatedAnnouncer,
  ],
})
export class IntrospectionModule {}
