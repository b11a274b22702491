import { Global, Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditLog } from './audit-log.service.js';

/** Global: every feature records its events through AuditLog. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [AuditLog],
  exports: [AuditLog],
})
export class AuditModule {}
