import { Module } from '@nestjs/common';
import { ClientsCoreModule } from '../core/clients/clients-core.module.js';
import { SecurityEventsModule } from '../core/events/security-events.module.js';
import { SecurityEventFeed } from '../core/events/security-event-feed.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { RolesModule } from '../core/roles/roles.module.js';
import { SessionsModule } from '../core/sessions/sessions.module.js';
import { TwoFactorModule } from '../core/second-factor/two-factor.module.js';
import { LimitsModule } from '../limits/limits.module.js';
import { IntrospectionRequests } from './introspection-requests.js';
import { IntrospectionController } from './introspection.controller.js';
import { IntrospectionService } from './introspection.service.js';
import { KeysRotatedAnnouncer } from './keys-rotated.announcer.js';
import { PermissionNamesService } from './permission-names.service.js';
import { SecurityEventStream } from './security-event-stream.js';
import { SecurityEventsController } from './security-events.controller.js';

/** Other services asking about tokens (POST /api/auth/introspect) and following the event stream. */
@Module({
  imports: [
    LimitsModule,
    RbacCoreModule,
    ClientsCoreModule,
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
