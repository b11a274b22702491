import { Public } from '@auth-rbac/nest-guard';
import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute } from '../common/route-doc.js';
import { AuthorizationService, type BrowserState, type Outcome } from './authorization.service.js';

/** The single sign-on cookie and the forms' CSRF cookie travel only to the provider's paths. */
const PROVIDER_PATH = '/api/auth/authorize';
export const SSO_COOKIE = 'auth_sso';
export const CSRF_COOKIE = 'auth_sso_csrf';
const COOKIE = { httpOnly: true, secure: true, sameSite: 'lax', path: PROVIDER_PATH } as const;

const PAGE = (description: string) => ({ produces: 'text/html', description });

/**
 * The OpenID provider's authorization endpoint (GET, and POST as a form) and the forms of its
 * pages. Answers are redirects or HTML pages, never the envelope.
 */
@Public()
@Controller('auth/authorize')
export class AuthorizationController {
  constructor(private readonly authorization: AuthorizationService) {}

  @Get()
  @DocumentRoute({
    summary: 'OpenID Connect authorization endpoint (authorization code with PKCE S256)',
    page: PAGE('A redirect to the redirect URI (code or error), a sign-in or consent page, or a 400 error page.'),
  })
  async authorizeGet(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const browser = browserState(request);
    answer(reply, browser, await this.authorization.authorize(request.query, browser));
  }

  @Post()
  @DocumentRoute({
    summary: 'OpenID Connect authorization endpoint, as a form post',
    page: PAGE('As the GET form of the endpoint.'),
  })
  async authorizePost(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const browser = browserState(request);
    answer(reply, browser, await this.authorization.authorize(request.body, browser));
  }

  @Post('login')
  @DocumentRoute({
    summary: "The provider's sign-in form: email (or mobile) and password",
    page: PAGE('The second-factor or consent page, the sign-in page with the refusal, or a redirect.'),
  })
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Client() client: ClientInfo): Promise<void> {
    const browser = browserState(request);
    answer(reply, browser, await this.authorization.signIn(formOf(request), browser, client));
  }

  @Post('verify')
  @DocumentRoute({
    summary: "The provider's second-factor form",
    page: PAGE('The consent page, the second-factor page with the refusal, or a redirect.'),
  })
  async verify(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Client() client: ClientInfo,
  ): Promise<void> {
    const browser = browserState(request);
    answer(reply, browser, await this.authorization.verify(formOf(request), browser, client));
  }

  @Post('consent')
  @DocumentRoute({
    summary: "The provider's consent form (Allow or Deny)",
    page: PAGE('A redirect to the redirect URI, or the sign-in page.'),
  })
  async consent(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const browser = browserState(request);
    answer(reply, browser, await this.authorization.consent(formOf(request), browser));
  }
}

function formOf(request: FastifyRequest): Record<string, unknown> {
  return typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
}

/** The browser's cookies; a CSRF token is made for a browser that has none yet. */
function browserState(request: FastifyRequest): BrowserState & { newCsrf: boolean } {
  const cookies = request.cookies ?? {};
  const csrf = cookies[CSRF_COOKIE];
  const valid = typeof csrf === 'string' && /^[A-Za-z0-9_-]{43}$/.test(csrf);
  return {
    sso: cookies[SSO_COOKIE],
    csrf: valid ? csrf : randomBytes(32).toString('base64url'),
    newCsrf: !valid,
  };
}

function answer(reply: FastifyReply, browser: BrowserState & { newCsrf: boolean }, outcome: Outcome): void {
  if (browser.newCsrf) void reply.setCookie(CSRF_COOKIE, browser.csrf, COOKIE);
  if (outcome.signedIn) void reply.setCookie(SSO_COOKIE, outcome.signedIn, COOKIE);
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
