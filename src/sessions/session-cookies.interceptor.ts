import {
  Injectable,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, type Observable } from 'rxjs';
import { AppConfig } from '../config/app-config.js';
import { setAuthCookies } from './auth-cookies.js';

/** A started or rotated session: the body to answer, and the tokens the browser keeps as cookies. */
interface SessionOutcome {
  response: unknown;
  tokens: { accessToken: string; refreshToken: string };
}

/** A first factor that asks for the second: the challenge carries a temp token only, no session yet. */
interface ChallengeOutcome {
  challenge: unknown;
}

function isSession(outcome: unknown): outcome is SessionOutcome {
  return typeof outcome === 'object' && outcome !== null && 'tokens' in outcome && 'response' in outcome;
}

function isChallenge(outcome: unknown): outcome is ChallengeOutcome {
  return typeof outcome === 'object' && outcome !== null && 'challenge' in outcome;
}

/**
 * Answers what a handler marked `@IssuesSession()` returns. A new session's body goes out with its
 * tokens' cookies set (browser delivery, as the contract sets it on every response that issues
 * tokens); a second-factor challenge goes out as it is, without cookies; anything else (a pending
 * email verification, a code sent) is answered unchanged.
 */
@Injectable()
export class SessionCookiesInterceptor implements NestInterceptor {
  constructor(private readonly config: AppConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(map((outcome: unknown) => this.answer(reply, outcome)));
  }

  private answer(reply: FastifyReply, outcome: unknown): unknown {
    if (isChallenge(outcome)) return outcome.challenge;
    if (!isSession(outcome)) return outcome;
    setAuthCookies(reply, outcome.tokens, this.config);
    return outcome.response;
  }
}

/** The route may sign in, rotate or re-authenticate: a session it issues also sets the auth cookies. */
export const IssuesSession = () => UseInterceptors(SessionCookiesInterceptor);
