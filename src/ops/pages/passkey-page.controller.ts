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
import { DocumentRoute } from '../../common/route-doc.js';

/** The account's security page (see passkey-page.ts); a page, not the API, so no envelope. */
@Public()
@Controller('account/security')
export class PasskeyPageController {
  @Get()
  @DocumentRoute({
    summary: 'The account security page (passkeys)',
    page: {
      produces: 'text/html',
      description:
        'The account security page: sign in with a passkey (or a password), add, rename and remove passkeys.',
    },
    noDatabase: true,
  })
  page(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .header('content-security-policy', PASSKEY_PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(PASSKEY_PAGE_HTML);
  }

  @Get('page.js')
  @DocumentRoute({
    summary: "The security page's script",
    page: { produces: 'application/javascript', description: "The security page's script." },
    noDatabase: true,
  })
  script(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(PASSKEY_PAGE_SCRIPT);
  }

  @Get('webauthn.js')
  @DocumentRoute({
    summary: "The security page's WebAuthn browser library",
    page: {
      produces: 'application/javascript',
      description: "SimpleWebAuthn's browser bundle, as the security page loads it.",
    },
    noDatabase: true,
  })
  webauthn(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(webauthnBrowserBundle());
  }

  @Get('page.css')
  @DocumentRoute({
    summary: "The security page's style sheet",
    page: { produces: 'text/css', description: "The security page's style sheet." },
    noDatabase: true,
  })
  style(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('text/css; charset=utf-8').send(PASSKEY_PAGE_CSS);
  }
}
