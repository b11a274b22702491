import { Public } from '@auth-rbac/nest-guard';
import { Controller, HttpCode, HttpStatus, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SkipRateLimits } from '../common/rate-limits.js';
import { IntrospectionRequests } from './introspection-requests.js';
import { IntrospectionService } from './introspection.service.js';
import { DocumentRoute, ref } from '../common/route-doc.js';

/**
 * RFC 7662 token introspection for other services. Not a sign-in endpoint: the per-address limits
 * of `/api/auth` do not apply (SkipRateLimits); the caller is a service authenticated by its client
 * credentials, limited per client. The answer is the RFC's bare JSON, not the envelope.
 */
@Controller('auth')
export class IntrospectionController {
  constructor(
    private readonly requests: IntrospectionRequests,
    private readonly introspection: IntrospectionService,
  ) {}

  @Public()
  @SkipRateLimits()
  @Post('introspect')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'RFC 7662 token introspection, for service clients',
    bare: ref('Introspection'),
    clientCredentials: true,
  })
  async introspect(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const token = await this.requests.accept(request);
    void reply.status(HttpStatus.OK).send(await this.introspection.introspect(token));
  }
}
