import { Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Req, Res } from '@nestjs/common';
import { CurrentUser, RequireFreshAuth, type AuthUser } from '@auth-rbac/nest-guard';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Client, type ClientInfo } from '../common/client-info.js';
import { TakesNoBody } from '../common/empty-body.pipe.js';
import { DocumentRoute, empty, list, type Schema } from '../common/route-doc.js';
import { UuidParam } from '../common/uuid-param.js';
import { AccountIdentitiesService } from './account-identities.service.js';
import { UPSTREAM_BINDING_COOKIE, UPSTREAM_COOKIE_OPTIONS } from './upstream-cookies.js';

const IDENTITY: Schema = {
  type: 'object',
  required: ['id', 'provider', 'email', 'linked_at', 'last_used_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    provider: { type: 'string', description: "The provider's slug." },
    email: { type: 'string', nullable: true, description: 'What the upstream said when the identity was linked.' },
    linked_at: { type: 'string', format: 'date-time' },
    last_used_at: { type: 'string', format: 'date-time', nullable: true },
  },
};

/** The holder's identities at upstream providers (contract, linking rule 4). */
@Controller('account/identities')
export class AccountIdentitiesController {
  constructor(private readonly identities: AccountIdentitiesService) {}

  @Get()
  @DocumentRoute({ summary: 'The identities at upstream providers linked to the account', data: list(IDENTITY) })
  list(@CurrentUser() user: AuthUser) {
    return this.identities.list(user);
  }

  // The path's one parameter is named `id` for both routes (Fastify keeps one name per position):
  // here it is the provider's slug, as the contract's `POST /api/account/identities/{slug}`.
  @Post(':id')
  @RequireFreshAuth()
  @HttpCode(HttpStatus.OK)
  @TakesNoBody()
  @DocumentRoute({
    summary:
      'Start linking an identity of the provider whose slug is in the path: open authorization_url in this browser (the cookie set here binds the flow to it); its answer links the identity signed in at the upstream',
    data: {
      type: 'object',
      required: ['authorization_url'],
      properties: { authorization_url: { type: 'string' } },
    },
    statuses: { 404: 'NOT_FOUND: no enabled identity provider has this slug.' },
  })
  async startLink(
    @CurrentUser() user: AuthUser,
    @Param('id') slug: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const started = await this.identities.startLink(user, slug, request.cookies?.[UPSTREAM_BINDING_COOKIE]);
    void reply.setCookie(UPSTREAM_BINDING_COOKIE, started.binding, UPSTREAM_COOKIE_OPTIONS);
    return started.response;
  }

  @Delete(':id')
  @RequireFreshAuth()
  @DocumentRoute({
    summary: 'Unlink an identity (the holder is told by mail)',
    data: empty,
    statuses: {
      404: 'NOT_FOUND: the account has no such identity.',
      409: 'CONFLICT: it is the last way to sign in to the account.',
    },
  })
  unlink(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.identities.unlink(user, id, client);
  }
}
