import { Global, Module } from '@nestjs/common';
import { OutboxObserver } from '../infra/messaging/outbox-observer.js';
import { AuditEventsRepository } from './audit-events.repository.js';
import { AuditLog } from './audit-log.service.js';
import { AuditRetention } from './audit-retention.service.js';
import { AuditTrailService } from './audit-trail.service.js';
import { AuditController } from './audit.controller.js';
import { OutboxAuditing } from './outbox-auditing.js';

/**
 * Global: every capability records its events through AuditLog, and the outbox reports deliveries
 * to its observer. The retention's timer is unreferenced, so a CLI command that imports this ends.
 */
@Global()
@Module({
  controllers: [AuditController],
  providers: [
    AuditLog,
    AuditEventsRepository,
    { provide: OutboxObserver, useClass: OutboxAuditing },
    AuditRetention,
    AuditTrailService,
  ],
  exports: [AuditLog, AuditEventsRepository, OutboxObserver],
})
export class AuditModule {}
