import { Public } from '@auth-rbac/nest-guard';
import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SkipRateLimits } from '../common/rate-limits.js';
import { IntrospectionRequests } from './introspection-requests.js';
import { PermissionNamesService } from './permission-names.service.js';
import { SecurityEventStream } from './security-event-stream.js';
import { DocumentRoute, list } from '../common/route-doc.js';

/**
 * What other services follow and look up with their client credentials (HTTP Basic, as for
 * introspection): the stream of signed security events, and the names of the permissions.
 */
@Controller('auth')
export class SecurityEventsController {
  constructor(
    private readonly requests: IntrospectionRequests,
    private readonly stream: SecurityEventStream,
    private readonly permissions: PermissionNamesService,
  ) {}

  @Public()
  @SkipRateLimits()
  @Get('events')
  @DocumentRoute({
    summary: 'The security event stream (Server-Sent Events), for service clients',
    page: {
      produces: 'text/event-stream',
      description:
        'Server-Sent Events: one Security Event Token (RFC 8417, JWS of the signing key, `typ: secevent+jwt`) per event (`session-revoked`, `credential-change`, `assignment-change`, `role-change`, `keys-rotated`), `id:` the event id; `Last-Event-ID` replays what was missed while it is kept (ACCESS_TOKEN_EXPIRY), else one `reset`; then `ready`; a comment every 15 s. See docs/events.md.',
    },
    clientCredentials: true,
  })
  async events(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.stream.stream(await this.requests.authenticate(request), request, reply);
  }

  @Public()
  @SkipRateLimits()
  @Get('permissions')
  @DocumentRoute({
    summary: 'Every permission name, for service clients',
    data: list({ type: 'string', description: 'a permission name' }),
    clientCredentials: true,
  })
  async permissionNames(@Req() request: FastifyRequest): Promise<{ items: string[]; total: number }> {
    await this.requests.authenticate(request);
    return this.permissions.list();
  }
}
