import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuditController } from './audit.controller.js';
import { AuditEventsRepository } from './audit-events.repository.js';
import { AuditLog } from './audit-log.service.js';
import { PrivilegeRefusalAuditInterceptor } from './privilege-refusal-audit.interceptor.js';
import { AuditRetention } from './audit-retention.service.js';
import { AuditTrailService } from './audit-trail.service.js';

/** Global: every feature records its events through AuditLog. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [
    AuditLog,
    AuditEventsRepository,
    AuditRetention,
    AuditTrailService,
    { provide: APP_INTERCEPTOR, useClass: PrivilegeRefusalAuditInterceptor },
  ],
  exports: [AuditLog],
})
export class AuditModule {}
