import { Public } from '@auth-rbac/nest-guard';
import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute } from '../common/route-doc.js';
import { AuthorizationService, type BrowserState, type Outcome } from './authorization.service.js';
import { EndSessionService, type EndSessionOutcome } from './end-session.service.js';
import { PASSKEY_SCRIPT } from './pages.js';
import { UPSTREAM_COOKIE_OPTIONS, UPSTREAM_LINK_COOKIE } from '../upstream/index.js';

/** The single sign-on cookie and the forms' CSRF cookie travel only to the provider's paths. */
const PROVIDER_PATH = '/api/auth/authorize';
export const SSO_COOKIE = 'auth_sso';
export const CSRF_COOKIE = 'auth_sso_csrf';
const COOKIE = { httpOnly: true, secure: true, sameSite: 'lax', path: PROVIDER_PATH } as const;

const PAGE = (description: string) => ({
  produces: 'text/html',
  description,
  redirect: 'To the redirect URI: `code`, `state` and `iss`, or `error`, `error_description`, `state` and `iss`.',
});
const UNKNOWN_CLIENT =
  'A page: an unknown client or a redirect URI not registered for it (never a redirect), or an expired form.';

/**
 * The OpenID provider's authorization endpoint (GET, and POST as a form) and the forms of its
 * pages. Answers are redirects or HTML pages, never the envelope.
 */
@Public()
@Controller('auth/authorize')
export class AuthorizationController {
  constructor(
    private readonly authorization: AuthorizationService,
    private readonly endSessions: EndSessionService,
  ) {}

  @Get()
  @DocumentRoute({
    summary: 'OpenID Connect authorization endpoint (authorization code with PKCE S256)',
    page: PAGE('The sign-in or consent page.'),
    statuses: { 400: UNKNOWN_CLIENT },
  })
  authorizeGet(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return answerStep(request, reply, (browser) => this.authorization.authorize(request.query, browser));
  }

  @Post()
  @DocumentRoute({
    summary: 'OpenID Connect authorization endpoint, as a form post',
    page: PAGE('The sign-in or consent page.'),
    statuses: { 400: UNKNOWN_CLIENT },
  })
  authorizePost(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return answerStep(request, reply, (browser) => this.authorization.authorize(request.body, browser));
  }

  @Post('login')
  @DocumentRoute({
    summary: "The provider's sign-in form: email (or mobile) and password",
    page: PAGE('The second-factor or consent page.'),
    statuses: {
      400: UNKNOWN_CLIENT,
      401: "The sign-in page again with the API's message (INVALID_CREDENTIALS).",
      403: "The sign-in page again with the API's message (ACCOUNT_DISABLED, EMAIL_NOT_VERIFIED, LOGIN_METHOD_DISABLED), said only after the right password.",
      429: 'The sign-in page again: the account is locked or the address is over its limit (RATE_LIMITED).',
    },
  })
  login(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Client() client: ClientInfo): Promise<void> {
    return answerStep(request, reply, (browser) => this.authorization.signIn(formOf(request), browser, client));
  }

  @Post('verify')
  @DocumentRoute({
    summary: "The provider's second-factor form",
    page: PAGE('The consent page.'),
    statuses: {
      400: UNKNOWN_CLIENT,
      401: "The second-factor page again with the API's message (INVALID_OTP, OTP_EXPIRED, UNAUTHENTICATED).",
      429: 'The second-factor page again: the account is locked (RATE_LIMITED).',
    },
  })
  verify(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Client() client: ClientInfo): Promise<void> {
    return answerStep(request, reply, (browser) => this.authorization.verify(formOf(request), browser, client));
  }

  @Post('send-sms')
  @DocumentRoute({
    summary: 'The second-factor page\'s button "Text me a code" (the account\'s own mobile, as send-2fa)',
    page: PAGE('The second-factor page, its Code form now answered by the texted code.'),
    statuses: {
      400: `${UNKNOWN_CLIENT} Or the page again: this sign-in offers no SMS code (VALIDATION_FAILED).`,
      401: 'The second-factor page again: the sign-in has expired (UNAUTHENTICATED, OTP_EXPIRED).',
      429: 'The second-factor page again: the account is locked, or 3 codes were already texted (RATE_LIMITED).',
    },
  })
  sendSms(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return answerStep(request, reply, (browser) => this.authorization.sendSms(formOf(request), browser));
  }

  @Get('passkey.js')
  @DocumentRoute({
    summary: 'The second-factor page\'s script for the button "Use a passkey"',
    page: { produces: 'application/javascript', description: 'The script, the same for every page.' },
    noDatabase: true,
  })
  passkeyScript(@Res() reply: FastifyReply): void {
    void reply.type('application/javascript; charset=utf-8').send(PASSKEY_SCRIPT);
  }

  @Post('consent')
  @DocumentRoute({
    summary: "The provider's consent form (Allow or Deny)",
    page: PAGE('The sign-in page, when the browser has no sign-in any more.'),
    statuses: { 400: UNKNOWN_CLIENT },
  })
  consent(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return answerStep(request, reply, (browser) => this.authorization.consent(formOf(request), browser));
  }

  @Get('end-session')
  @DocumentRoute({
    summary: 'OpenID Connect RP-initiated logout (end_session_endpoint)',
    page: {
      produces: 'text/html',
      description: 'Signed out (with an id_token_hint), or a page with the button Sign out.',
      redirect: 'To the registered post_logout_redirect_uri, with `state`.',
    },
    statuses: { 400: 'A page: an id_token_hint not issued here, or an unregistered post_logout_redirect_uri.' },
  })
  endSessionGet(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return answerStep(request, reply, (browser) => this.endSessions.endSession(request.query, browser));
  }

  @Post('end-session')
  @DocumentRoute({
    summary: 'RP-initiated logout as a form post, and the Sign out button',
    page: {
      produces: 'text/html',
      description: 'Signed out.',
      redirect: 'To the registered post_logout_redirect_uri, with `state`.',
    },
    statuses: { 400: 'A page: an expired form, an id_token_hint not issued here, or an unregistered URI.' },
  })
  endSessionPost(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const form = formOf(request);
    return answerStep(request, reply, (browser) =>
      form.id_token_hint === undefined
        ? this.endSessions.signOut(form, browser)
        : this.endSessions.endSession(form, browser),
    );
  }
}

/**
 * One step of the provider's pages: it reads the browser's cookies, and its outcome (a page or a
 * redirect, and the cookies that go with it) is the answer.
 */
async function answerStep(
  request: FastifyRequest,
  reply: FastifyReply,
  step: (browser: BrowserState) => Promise<Outcome | EndSessionOutcome>,
): Promise<void> {
  const browser = browserState(request);
  answer(reply, browser, await step(browser));
}

function formOf(request: FastifyRequest): Record<string, unknown> {
  return typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
}

/** The browser's cookies; a CSRF token is made for a browser that has none yet. */
export function browserState(request: FastifyRequest): BrowserState & { newCsrf: boolean } {
  const cookies = request.cookies ?? {};
  const csrf = cookies[CSRF_COOKIE];
  const valid = typeof csrf === 'string' && /^[A-Za-z0-9_-]{43}$/.test(csrf);
  return {
    sso: cookies[SSO_COOKIE],
    csrf: valid ? csrf : randomBytes(32).toString('base64url'),
    newCsrf: !valid,
    linkProof: cookies[UPSTREAM_LINK_COOKIE],
  };
}

export function answer(
  reply: FastifyReply,
  browser: BrowserState & { newCsrf: boolean },
  outcome: Outcome | EndSessionOutcome,
): void {
  if (browser.newCsrf) void reply.setCookie(CSRF_COOKIE, browser.csrf, COOKIE);
  if ('signedOut' in outcome && outcome.signedOut) void reply.clearCookie(SSO_COOKIE, COOKIE);
  if (outcome.signedIn) void reply.setCookie(SSO_COOKIE, outcome.signedIn, COOKIE);
  for (const cookie of ('cookies' in outcome ? outcome.cookies : undefined) ?? []) {
    if (cookie.value === null) void reply.clearCookie(cookie.name, UPSTREAM_COOKIE_OPTIONS);
    else void reply.setCookie(cookie.name, cookie.value, UPSTREAM_COOKIE_OPTIONS);
  }
  if (outcome.kind === 'redirect') {
    void reply.status(302).header('location', outcome.location).send();
    return;
  }
  void reply
    .status(outcome.status)
    .header('content-security-policy', outcome.csp)
    .type('text/html; charset=utf-8')
    .send(outcome.html);
}
