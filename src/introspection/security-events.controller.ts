import { Public } from '@auth-rbac/nest-guard';
import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SkipRateLimits } from '../common/rate-limits.js';
import { IntrospectionRequests } from './introspection-requests.js';
import { PermissionNamesService } from './permission-names.service.js';
import { SecurityEventStream } from './security-event-stream.js';

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
  async events(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.stream.stream(await this.requests.authenticate(request), request, reply);
  }

  @Public()
  @SkipRateLimits()
  @Get('permissions')
  async permissionNames(@Req() request: FastifyRequest): Promise<{ items: string[]; total: number }> {
    await this.requests.authenticate(request);
    return this.permissions.list();
  }
}
