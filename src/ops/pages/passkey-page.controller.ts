import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import {
  PASSKEY_PAGE_CSP,
  PASSKEY_PAGE_CSS,
  PASSKEY_PAGE_HTML,
  PASSKEY_PAGE_SCRIPT,
  webauthnBrowserBundle,
} from './passkey-page.js';

/** The account's security page (see passkey-page.ts); a page, not the API, so no envelope. */
@Public()
@Controller('account/security')
export class PasskeyPageController {
  @Get()
  page(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .header('content-security-policy', PASSKEY_PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(PASSKEY_PAGE_HTML);
  }

  @Get('page.js')
  script(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(PASSKEY_PAGE_SCRIPT);
  }

  @Get('webauthn.js')
  webauthn(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(webauthnBrowserBundle());
  }

  @Get('page.css')
  style(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('text/css; charset=utf-8').send(PASSKEY_PAGE_CSS);
  }
}
