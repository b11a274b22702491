import { Module } from '@nestjs/common';
import { EventsModule, SecurityEventFeed } from '../events/index.js';
import { OidcModule } from '../oidc/index.js';
import { RbacModule } from '../rbac/index.js';
import { OrganizationsModule } from '../organizations/index.js';
import { SecondFactorModule } from '../second-factor/index.js';
import { SessionsModule } from '../sessions/index.js';
import { IntrospectionRequests } from './introspection-requests.js';
import { IntrospectionController } from './introspection.controller.js';
import { IntrospectionService } from './introspection.service.js';
import { PermissionNamesService } from './permission-names.service.js';
import { SecurityEventStream } from './security-event-stream.js';
import { SecurityEventsController } from './security-events.controller.js';

/** Other services asking about tokens (POST /api/auth/introspect) and following the event stream. */
@Module({
  imports: [RbacModule, OidcModule, SecondFactorModule, EventsModule, SessionsModule, OrganizationsModule],
  controllers: [IntrospectionController, SecurityEventsController],
  providers: [
    IntrospectionRequests,
    IntrospectionService,
    SecurityEventFeed,
    SecurityEventStream,
    PermissionNamesService,
  ],
})
export class IntrospectionModule {}
