import { Module } from '@nestjs/common';
import { SecurityEventsRepository } from './security-events.repository.js';

/** The security events table, for the changes that write events and for the stream that reads them. */
@Module({
  providers: [SecurityEventsRepository],
  exports: [SecurityEventsRepository],
})
export class SecurityEventsModule {}
