import { Injectable, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { HttpMessages } from '../infra/messaging/http-messages.js';
import { Outbox } from '../infra/messaging/outbox.service.js';
import { SessionEndings, type EndedSession } from '../sessions/index.js';
import { IdTokenKeys } from './id-token-keys.js';

/** OpenID Back-Channel Logout 1.0 §2.6: the event a logout token carries. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token's lifetime (the specification recommends about two minutes); each attempt signs a new one. */
const LOGOUT_TOKEN_TTL_SECONDS = 120;

/** What a queued logout says, sealed in the outbox; the token itself is signed at each attempt. */
interface QueuedLogout {
  sub: string;
  sid: string;
  aud: string;
  jti: string;
}

/**
 * Back-channel logout: whenever a session issued to a client that registered a
 * `backchannel_logout_uri` ends (logout, revocation by its holder or an administrator, a password
 * change or reset, disabling, deletion, refresh-token reuse, RP-initiated logout), a logout token
 * is queued in the outbox in the transaction that ends it, and POSTed as a form by the outbox with
 * its retries. `sid` is the browser sign-in, as in the ID tokens; one token per client and sign-in.
 */
@Injectable()
export class BackchannelLogout implements OnModuleInit {
  constructor(
    private readonly endings: SessionEndings,
    private readonly outbox: Outbox,
    private readonly http: HttpMessages,
    private readonly keys: IdTokenKeys,
  ) {}

  onModuleInit(): void {
    this.endings.listen((manager, ended) => this.queue(manager, ended));
    this.http.register('backchannel_logout', (text) => this.logoutForm(text));
  }

  private async queue(manager: EntityManager, ended: readonly EndedSession[]): Promise<void> {
    const owed = new Map<string, { uri: string; logout: QueuedLogout }>();
    for (const session of ended) {
      if (session.clientId === null || session.backchannelLogoutUri === null) continue;
      const sid = session.parentSessionId ?? session.id;
      owed.set(`${session.clientId} ${sid}`, {
        uri: session.backchannelLogoutUri,
        logout: { sub: session.userId, sid, aud: session.clientId, jti: randomUUID() },
      });
    }
    for (const { uri, logout } of owed.values()) {
      await this.outbox.enqueue(
        {
          channel: 'http',
          kind: 'backchannel_logout',
          userId: logout.sub,
          payload: { to: uri, text: JSON.stringify(logout) },
        },
        manager,
      );
    }
  }

  /** The form the receiver gets: `logout_token`, signed as ID tokens are, `typ: logout+jwt`, no nonce. */
  private async logoutForm(text: string): Promise<Record<string, string>> {
    const { sub, sid, aud, jti } = JSON.parse(text) as QueuedLogout;
    const token = await this.keys.sign(
      { sub, sid, aud, jti, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } },
      LOGOUT_TOKEN_TTL_SECONDS,
      'logout+jwt',
    );
    return { logout_token: token };
  }
}
