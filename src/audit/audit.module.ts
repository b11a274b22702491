import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuditCoreModule } from '../core/audit/audit-core.module.js';
import { AuditController } from './audit.controller.js';
import { PrivilegeRefusalAuditInterceptor } from './privilege-refusal-audit.interceptor.js';
import { AuditRetention } from './audit-retention.service.js';
import { AuditTrailService } from './audit-trail.service.js';

/** Global: every feature records its events through AuditLog, and the outbox reports to its observer. */
@Global()
@Module({
  imports: [AuditCoreModule],
  controllers: [AuditController],
  providers: [
    AuditRetention,
    AuditTrailService,
    { provide: APP_INTERCEPTOR, useClass: PrivilegeRefusalAuditInterceptor },
  ],
  exports: [AuditCoreModule],
})
export class AuditModule {}
