import type { ClaimedMessage } from './outbox.repository.js';

/**
 * What the outbox reports about its deliveries. The outbox is infrastructure and knows nothing of
 * the audit trail: the core provides the observer (which writes the audit events) under this token.
 */
export abstract class OutboxObserver {
  /** A message was handed to its transport. */
  abstract delivered(message: ClaimedMessage): Promise<void>;
  /** A message will not be retried any more. */
  abstract givenUp(message: ClaimedMessage, reason: string): Promise<void>;
}
