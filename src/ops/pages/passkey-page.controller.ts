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
import { sendPage, sendScript, sendStyle, scriptDoc, styleDoc } from './page-replies.js';

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
    return sendPage(reply, PASSKEY_PAGE_CSP, PASSKEY_PAGE_HTML);
  }

  @Get('page.js')
  @DocumentRoute(scriptDoc("The security page's"))
  script(@Res() reply: FastifyReply): FastifyReply {
    return sendScript(reply, PASSKEY_PAGE_SCRIPT);
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
    return sendScript(reply, webauthnBrowserBundle());
  }

  @Get('page.css')
  @DocumentRoute(styleDoc("The security page's"))
  style(@Res() reply: FastifyReply): FastifyReply {
    return sendStyle(reply, PASSKEY_PAGE_CSS);
  }
}
