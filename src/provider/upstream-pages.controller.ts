import { Public } from '@auth-rbac/nest-guard';
import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute } from '../common/route-doc.js';
import { AppConfig } from '../config/app-config.js';
import { UPSTREAM_BINDING_COOKIE } from '../upstream/index.js';
import { answer, browserState } from './authorization.controller.js';
import { UpstreamPagesService } from './upstream-pages.service.js';

/**
 * The buttons "Continue with <name>" of the provider's sign-in page and the upstream's answer.
 * Under the provider's path, so the single sign-on and form cookies reach them.
 */
@Public()
@Controller('auth/authorize/upstream')
export class UpstreamPagesController {
  constructor(
    private readonly pages: UpstreamPagesService,
    private readonly config: AppConfig,
  ) {}

  @Post(':slug')
  @DocumentRoute({
    summary: 'A button "Continue with <name>": the authorization request goes on at the upstream provider',
    page: {
      produces: 'text/html',
      description: 'The sign-in page again, when the provider is not available.',
      redirect: "To the upstream's authorization endpoint (state, nonce, PKCE S256).",
    },
    statuses: { 400: 'A page: an unknown client or redirect URI, an expired form, or a provider not available.' },
  })
  async start(@Param('slug') slug: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const browser = { ...browserState(request), binding: request.cookies?.[UPSTREAM_BINDING_COOKIE] };
    const form =
      typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
    answer(reply, browser, await this.pages.start(slug, form, browser));
  }

  @Get(':slug/callback')
  @DocumentRoute({
    summary: "The upstream provider's answer (the redirect URI registered there)",
    page: {
      produces: 'text/html',
      description:
        'The second-factor or consent page; the sign-in page asking to sign in to the account that holds the address (a link follows); a page saying a link from the account is made.',
      redirect: 'To the redirect URI of the client that asked: `code`, `state` and `iss`.',
    },
    statuses: {
      400: 'A page: a state unknown, used, expired, or from another browser.',
      401: 'The sign-in page again: the upstream refused, or its answer failed a check (ID token signature, iss, aud, nonce, exp).',
      403: 'The sign-in page again: the provider is disabled, the account is disabled (ACCOUNT_DISABLED), or sign-up is off.',
      409: 'A page: the identity is linked to another account.',
    },
  })
  async callback(
    @Param('slug') slug: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Client() client: ClientInfo,
  ): Promise<void> {
    const browser = { ...browserState(request), binding: request.cookies?.[UPSTREAM_BINDING_COOKIE] };
    const query =
      typeof request.query === 'object' && request.query !== null ? (request.query as Record<string, unknown>) : {};
    // The URL the upstream sent the browser to, as the library checks it (RFC 9207's iss among its parameters).
    const callbackUrl = new URL(request.url, `${this.config.http.issuer}/`);
    answer(reply, browser, await this.pages.callback(slug, query, callbackUrl, browser, client));
  }
}
