import { Public } from '@auth-rbac/nest-guard';
import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SkipRateLimits } from '../common/rate-limits.js';
import { PublishedKeys } from './published-keys.js';
import { SigningKeys } from './signing-keys.js';
import { DocumentRoute, ref } from '../common/route-doc.js';

/**
 * `GET /.well-known/jwks.json` (RFC 7517, bare JSON): the public keys that verify the service's
 * tokens, current and retired, and the OpenID provider's ID-token keys; no HS256 secret is ever
 * published.
 * Other services fetch it rarely and cache it, so it may be cached for five minutes.
 */
@Public()
@SkipRateLimits()
@Controller('.well-known')
export class JwksController {
  constructor(
    private readonly keys: SigningKeys,
    private readonly published: PublishedKeys,
  ) {}

  @Get('jwks.json')
  @DocumentRoute({
    summary: 'The public keys that verify access tokens (RFC 7517)',
    bare: ref('Jwks'),
    noDatabase: true,
  })
  async jwks(@Res() reply: FastifyReply): Promise<void> {
    const [own, others] = await Promise.all([this.keys.jwks(), this.published.keys()]);
    void reply.header('cache-control', 'public, max-age=300').send({ keys: [...own.keys, ...others] });
  }
}
