export { EventsModule } from './events.module.js';
export { SecurityEventFeed } from './security-event-feed.js';
export { SecurityEventsRepository, revocationEvents, type SecurityEventRow } from './security-events.repository.js';
