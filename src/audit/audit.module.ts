import { Global, Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditEventsRepository } from './audit-events.repository.js';
import { AuditLog } from './audit-log.service.js';
import { AuditRetention } from './audit-retention.service.js';
import { AuditTrailService } from './audit-trail.service.js';

/** Global: every feature records its events through AuditLog. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [AuditLog, AuditEventsRepository, AuditRetention, AuditTrailService],
  exports: [AuditLog],
})
export class AuditModule {}
