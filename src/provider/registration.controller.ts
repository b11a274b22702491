import { Public } from '@auth-rbac/nest-guard';
import { Controller, HttpStatus, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref } from '../common/route-doc.js';
import { ClientRegistration, RegistrationError } from './client-registration.js';

/**
 * Dynamic client registration (RFC 7591) at discovery's `registration_endpoint`, when
 * OIDC_DYNAMIC_REGISTRATION is on (404 otherwise). Limited per client address as every
 * `/api/auth` endpoint; its answers are RFC 7591's bare JSON.
 */
@Controller('auth')
export class RegistrationController {
  constructor(private readonly registration: ClientRegistration) {}

  @Public()
  @Post('register-client')
  @DocumentRoute({
    summary: 'Dynamic client registration (RFC 7591): a third-party client registers itself',
    bare: ref('ClientRegistration'),
    oauthErrors: true,
    statuses: {
      400: 'invalid_redirect_uri: a redirect URI breaks the registry rules; invalid_client_metadata: any other field.',
      401: 'invalid_token: OIDC_REGISTRATION_TOKEN is set and was not given as a Bearer token.',
      404: 'NOT_FOUND: dynamic registration is off (OIDC_DYNAMIC_REGISTRATION).',
    },
  })
  async register(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Client() client: ClientInfo,
  ): Promise<void> {
    void reply.header('cache-control', 'no-store');
    try {
      const registered = await this.registration.register(request.headers.authorization, request.body, client);
      void reply.status(HttpStatus.CREATED).send(registered);
    } catch (error) {
      if (!(error instanceof RegistrationError)) throw error;
      if (error.status === 401) void reply.header('www-authenticate', `Bearer error="${error.error}"`);
      void reply.status(error.status).send(error.body());
    }
  }
}
