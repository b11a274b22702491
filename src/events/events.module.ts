import { Module } from '@nestjs/common';
import { SecurityEventsRepository } from './security-events.repository.js';

/** The table of security events other services follow (the stream itself is served by introspection). */
@Module({ providers: [SecurityEventsRepository], exports: [SecurityEventsRepository] })
export class EventsModule {}
