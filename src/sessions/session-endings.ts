import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A session a revocation (or the deletion of its account) ended, with its client's back-channel. */
export interface EndedSession {
  id: string;
  userId: string;
  /** The OpenID provider's client the session was issued to; null for the API's own sign-ins. */
  clientId: string | null;
  /** The browser sign-in it was issued under (the ID tokens' `sid`). */
  parentSessionId: string | null;
  /** Where that client takes back-channel logout tokens; null when it registered none. */
  backchannelLogoutUri: string | null;
}

export type SessionEndListener = (manager: EntityManager, ended: readonly EndedSession[]) => Promise<void>;

/**
 * Whoever must hear of every end of a session, told in the transaction that ends it (so what
 * they queue commits with the revocation or not at all). A capability above this one (the OpenID
 * provider's back-channel logout) registers at start, so sessions import nothing of it.
 */
@Injectable()
export class SessionEndings {
  private readonly listeners: SessionEndListener[] = [];

  listen(listener: SessionEndListener): void {
    this.listeners.push(listener);
  }

  async ended(manager: EntityManager, sessions: readonly EndedSession[]): Promise<void> {
    if (sessions.length === 0) return;
    for (const listener of this.listeners) await listener(manager, sessions);
  }
}
