import { Module } from '@nestjs/common';
import { ClientsCoreModule } from '../core/clients/clients-core.module.js';
import { RbacCoreModule } from '../core/principal/rbac-core.module.js';
import { SessionsModule } from '../core/sessions/sessions.module.js';
import { TwoFactorModule } from '../core/second-factor/two-factor.module.js';
import { IntrospectionRequests } from './introspection-requests.js';
import { IntrospectionController } from './introspection.controller.js';
import { IntrospectionService } from './introspection.service.js';

/** Other services asking about tokens: POST /api/auth/introspect. */
@Module({
  imports: [RbacCoreModule, ClientsCoreModule, SessionsModule, TwoFactorModule],
  controllers: [IntrospectionController],
  providers: [IntrospectionRequests, IntrospectionService],
})
export class IntrospectionModule {}
