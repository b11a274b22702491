import { Public } from '@auth-rbac/nest-guard';
import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SkipRateLimits } from '../common/rate-limits.js';
import { DiscoveryService } from './discovery.service.js';
import { DocumentRoute, ref } from '../common/route-doc.js';

/**
 * `GET /.well-known/openid-configuration` and `/.well-known/oauth-authorization-server` (bare
 * JSON): what standard clients read to find the keys and endpoints. Fetched rarely and cached by
 * them, so it may be cached for five minutes, like the JWKS.
 */
@Public()
@SkipRateLimits()
@Controller('.well-known')
export class DiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Get('openid-configuration')
  @DocumentRoute({ summary: 'OpenID Connect discovery document', bare: ref('Discovery'), noDatabase: true })
  openidConfiguration(@Res() reply: FastifyReply): void {
    void reply.header('cache-control', 'public, max-age=300').send(this.discovery.discovery());
  }

  @Get('oauth-authorization-server')
  @DocumentRoute({
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    bare: ref('Discovery'),
    noDatabase: true,
  })
  authorizationServer(@Res() reply: FastifyReply): void {
    void reply.header('cache-control', 'public, max-age=300').send(this.discovery.discovery());
  }
}
