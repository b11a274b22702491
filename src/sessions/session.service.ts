import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditLog, type AuditEntry } from '../audit/index.js';
import { AppException } from '../common/app-exception.js';
import { AppConfig } from '../config/app-config.js';
import { AuthzVersions } from '../rbac/index.js';
import { UsersRepository, assertMaySignIn, type AccountStatus } from '../identity/index.js';
import type { SessionRevocationReason } from '../infra/database/entities/session.entity.js';
import { SessionsRepository } from './sessions.repository.js';
import { digestsEqual, sha256Hex } from '../common/token-hash.js';
import type { RefreshClaims } from './token-claims.js';
import { invalidToken, TokenService, type ClientGrantClaims, type SessionIdentity } from './token.service.js';
import type { SessionGrant } from './sessions.repository.js';
import { Transactions } from '../infra/database/transactions.js';
import { methodsOf, type Authentication } from './authentication-methods.js';
import type { SessionRef } from '../common/session-ref.js';
import type { ClientInfo } from '../common/client-info.js';

/** PostgreSQL's SQLSTATE for a row that references one that no longer exists. */
const FOREIGN_KEY_VIOLATION = '23503';

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  userId: string;
}

export interface PublicUser {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
}

export interface TokenPairResponse {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  user: PublicUser;
}

/** A started or rotated session: the response body, and the tokens for the cookies. */
export interface IssuedSession {
  response: TokenPairResponse;
  tokens: IssuedTokens;
}

export function tokenPairResponse(tokens: IssuedTokens, user: PublicUser, accessTokenTtl: number): TokenPairResponse {
  return {
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
    token_type: 'Bearer',
    expires_in: accessTokenTtl,
    user: { id: user.id, name: user.name, email: user.email, mobile: user.mobile },
  };
}

/**
 * What a sign-in completes beside its new session: its audit event (whose target is the session),
 * and the lockout count it ends (a subject of `lockoutSubject`).
 */
export interface SignInCompletion {
  event?: Omit<AuditEntry, 'targetType' | 'targetId' | 'client'>;
  attemptsOf?: string;
  /** A session issued to a client of the OpenID provider (its tokens carry `client_id`, `scope`, `aud`). */
  grant?: SessionGrant;
}

/** The client claims of a session's access tokens, from its row; null for the API's own sessions. */
function grantClaimsOf(row: { clientId: string | null; scope: string | null; audience: string | null }) {
  return row.clientId === null
    ? null
    : ({ clientId: row.clientId, scope: row.scope ?? '', audience: row.audience } satisfies ClientGrantClaims);
}

/** A rotation's audit event: written with the rotation on the common path, after it on the locked one. */
const refreshEvent = (session: SessionRef): AuditEntry => ({
  type: 'refresh',
  actorId: session.userId,
  targetType: 'session',
  targetId: session.sessionId,
});

type RotationOutcome = { kind: 'rotated'; tokens: IssuedTokens } | { kind: 'reused' } | { kind: 'invalid' };

/**
 * Login sessions and refresh-token rotation. PostgreSQL is the source of truth: a refresh takes
 * the session row's lock, so of two requests with one token exactly one rotates and the other
 * is a replay that revokes the session.
 */
@Injectable()
export class SessionService {
  private readonly logger = new Logger('Sessions');

  constructor(
    private readonly transactions: Transactions,
    private readonly tokens: TokenService,
    private readonly config: AppConfig,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
    private readonly sessions: SessionsRepository,
    private readonly users: UsersRepository,
  ) {}

  /**
   * A new session, written in one statement with what the sign-in that made it completes (its
   * audit event, the end of its lockout count).
   */
  async start(
    user: { id: string; email: string } & AccountStatus,
    client: ClientInfo,
    authentication: Authentication,
    completion: SignInCompletion = {},
  ): Promise<IssuedTokens> {
    // Every sign-in ends here, each after its first factor: a disabled account gets no session.
    assertMaySignIn(user);
    const identity: SessionIdentity = { userId: user.id, email: user.email, sessionId: randomUUID() };
    const expiresAt = new Date(Date.now() + this.config.jwt.sessionMaxAge * 1000);
    const { event, attemptsOf, grant } = completion;
    const audited: AuditEntry | undefined = event && {
      ...event,
      targetType: 'session',
      targetId: identity.sessionId,
      client,
    };
    const [accessToken, refreshToken] = await Promise.all([
      this.tokens.signAccess(identity, authentication, grant && grantClaimsOf(grant)),
      this.tokens.signRefresh(identity, 0, expiresAt),
    ]);
    try {
      await this.sessions.insert(
        {
          id: identity.sessionId,
          userId: user.id,
          generation: 0,
          refreshTokenHash: sha256Hex(refreshToken),
          expiresAt,
          ip: client.ip?.slice(0, 64) ?? null,
          userAgent: client.userAgent?.slice(0, 512) ?? null,
          authTime: authentication.time,
          amr: authentication.methods,
          grant,
        },
        { event: audited && this.audit.rowOf(audited), attemptsOf },
      );
    } catch (error) {
      // The account was deleted after its first factor was checked: answered as an unknown account.
      if ((error as { code?: unknown }).code === FOREIGN_KEY_VIOLATION)
        throw new AppException('INVALID_CREDENTIALS', 'Invalid credentials.');
      throw error;
    }
    if (audited) this.audit.announce(audited);
    return {
      accessToken,
      refreshToken,
      sessionId: identity.sessionId,
      userId: user.id,
    };
  }

  /** A new session for a user who has just proved who they are, as the token-pair response. */
  async startWithResponse(
    user: PublicUser & AccountStatus,
    client: ClientInfo,
    authentication: Authentication,
    completion: SignInCompletion = {},
  ): Promise<IssuedSession> {
    const tokens = await this.start(user, client, authentication, completion);
    return { response: tokenPairResponse(tokens, user, this.config.jwt.accessTokenTtl), tokens };
  }

  /**
   * Strict rotation: the current refresh token buys a new pair once; any earlier one revokes the
   * session. Answers the new tokens and the user's current record (for the response).
   *
   * The common case is one statement and no transaction: the next refresh token is signed from
   * the presented one's claims (its session's end is among them), then a compare-and-set UPDATE
   * moves the session on only if nothing moved since that token was issued, writes the audit
   * event, and answers what the access token needs. Anything else (a replay, a parallel refresh
   * that won, a revoked or ended session, a disabled account, an email changed meanwhile, a token
   * issued before it carried `session_exp`) takes the locked path, which decides exactly as before.
   *
   * With `organizationId` (the token endpoint's `organization_id`, its membership checked by the
   * caller before): the new access token is that organization's, of the same session.
   */
  async rotate(refreshToken: string, organizationId?: string): Promise<{ tokens: IssuedTokens; user: PublicUser }> {
    const claims = await this.tokens.verify(refreshToken, 'refresh');
    const rotated = await this.rotateInOneStatement(refreshToken, claims, organizationId);
    if (rotated) return rotated;
    const tokens = await this.rotateLocked(refreshToken, claims, organizationId);
    const user = await this.users.findProfile(tokens.userId);
    if (!user) throw invalidToken();
    await this.audit.record(refreshEvent(tokens));
    return { tokens, user };
  }

  /** The common case of `rotate`; null when the locked path must decide. */
  private async rotateInOneStatement(
    refreshToken: string,
    claims: RefreshClaims,
    organizationId?: string,
  ): Promise<{ tokens: IssuedTokens; user: PublicUser } | null> {
    if (claims.session_exp === undefined) return null;
    const identity = { userId: claims.sub, email: claims.email, sessionId: claims.sid };
    const nextRefresh = await this.tokens.signRefresh(identity, claims.gen + 1, new Date(claims.session_exp * 1000));
    const event = refreshEvent({ userId: claims.sub, sessionId: claims.sid });
    const session = await this.sessions.advanceGeneration(
      {
        sessionId: claims.sid,
        userId: claims.sub,
        generation: claims.gen,
        presentedHash: sha256Hex(refreshToken),
        nextHash: sha256Hex(nextRefresh),
        email: claims.email,
      },
      this.audit.rowOf(event),
    );
    if (!session) return null;
    this.audit.announce(event);
    const accessToken = await this.tokens.signAccess(
      identity,
      { time: new Date(session.authTime), methods: methodsOf(session.amr) },
      grantClaimsOf(session),
      organizationId,
    );
    return {
      tokens: { accessToken, refreshToken: nextRefresh, sessionId: claims.sid, userId: claims.sub },
      user: { id: claims.sub, name: session.name, email: claims.email, mobile: session.mobile },
    };
  }

  private async rotateLocked(
    refreshToken: string,
    claims: RefreshClaims,
    organizationId?: string,
  ): Promise<IssuedTokens> {
    const presentedHash = sha256Hex(refreshToken);
    const outcome = await this.transactions.run(async (manager): Promise<RotationOutcome> => {
      const session = await this.sessions.findForUpdate(manager, claims.sid);
      if (!session || session.userId !== claims.sub || session.revokedAt || session.expiresAt.getTime() <= Date.now()) {
        return { kind: 'invalid' };
      }
      if (claims.gen !== session.generation || !digestsEqual(presentedHash, session.refreshTokenHash)) {
        await this.sessions.revoke(manager, { sessionId: session.id }, 'refresh_reuse');
        return { kind: 'reused' };
      }
      // Claims come from the user as they are now: an email changed since the last rotation is carried forward.
      const account = await this.users.findSignInAccount(session.userId, manager);
      if (account === null) return { kind: 'invalid' };
      assertMaySignIn(account);
      const email = account.email;
      const identity = { userId: session.userId, email, sessionId: session.id };
      const generation = session.generation + 1;
      const nextRefresh = await this.tokens.signRefresh(identity, generation, session.expiresAt);
      await this.sessions.setGeneration(manager, session.id, generation, sha256Hex(nextRefresh));
      return {
        kind: 'rotated',
        tokens: {
          accessToken: await this.tokens.signAccess(
            identity,
            { time: session.authTime, methods: methodsOf(session.amr) },
            grantClaimsOf(session),
            organizationId,
          ),
          refreshToken: nextRefresh,
          sessionId: session.id,
          userId: session.userId,
        },
      };
    });
    if (outcome.kind === 'reused') {
      await this.versions.bumpUser(claims.sub);
      await this.audit.record({
        type: 'refresh.reuse',
        actorId: claims.sub,
        targetType: 'session',
        targetId: claims.sid,
      });
      this.logger.warn(`Refresh token replayed: session ${claims.sid} of user ${claims.sub} revoked`);
      throw new AppException(
        'REFRESH_TOKEN_REUSED',
        'This refresh token was already used; the session has been revoked. Sign in again.',
      );
    }
    if (outcome.kind === 'invalid') throw invalidToken();
    return outcome.tokens;
  }

  /**
   * A new proof of presence inside a live session: the session keeps its id and moves to the next
   * generation (the earlier refresh token becomes a replay), and its tokens carry the new
   * `auth_time` and `amr`. 401 when the session has ended meanwhile.
   */
  async reauthenticate(
    owner: SessionRef,
    authentication: Authentication,
  ): Promise<{ tokens: IssuedTokens; user: PublicUser }> {
    const tokens = await this.transactions.run(async (manager) => {
      const session = await this.sessions.findForUpdate(manager, owner.sessionId);
      if (
        !session ||
        session.userId !== owner.userId ||
        session.revokedAt ||
        session.expiresAt.getTime() <= Date.now()
      ) {
        return null;
      }
      const email = await this.users.findEmail(manager, session.userId);
      if (email === null) return null;
      const identity = { userId: session.userId, email, sessionId: session.id };
      const generation = session.generation + 1;
      const [accessToken, refreshToken] = await Promise.all([
        this.tokens.signAccess(identity, authentication, grantClaimsOf(session)),
        this.tokens.signRefresh(identity, generation, session.expiresAt),
      ]);
      await this.sessions.recordReauthentication(manager, {
        sessionId: session.id,
        generation,
        refreshTokenHash: sha256Hex(refreshToken),
        authTime: authentication.time,
        amr: authentication.methods,
      });
      return { accessToken, refreshToken, sessionId: session.id, userId: session.userId };
    });
    if (!tokens) throw invalidToken();
    const user = await this.users.findProfile(tokens.userId);
    if (!user) throw invalidToken();
    return { tokens, user };
  }

  async revoke(sessionId: string, reason: SessionRevocationReason): Promise<void> {
    const rows = await this.sessions.revoke(this.transactions.manager, { sessionId }, reason);
    // After the commit: every instance drops its cached caller for this user.
    for (const row of rows) {
      await this.versions.bumpUser(row.userId);
      if (reason === 'logout')
        await this.audit.record({ type: 'logout', actorId: row.userId, targetType: 'session', targetId: sessionId });
    }
  }
}
