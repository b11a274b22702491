import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import {
  VERIFY_EMAIL_PAGE_CSP,
  VERIFY_EMAIL_PAGE_CSS,
  VERIFY_EMAIL_PAGE_HTML,
  VERIFY_EMAIL_PAGE_SCRIPT,
} from './verify-email-page.js';
import { DocumentRoute } from '../../common/route-doc.js';
import { sendPage, sendScript, sendStyle, scriptDoc, styleDoc } from './page-replies.js';

/** The HTML page of the verification link (see verify-email-page.ts); a page, not the API. */
@Public()
@Controller('verify-email')
export class VerifyEmailPageController {
  @Get()
  @DocumentRoute({
    summary: 'The page an email-verification link opens',
    page: {
      produces: 'text/html',
      description: 'The page that verifies an address with the token of a verification link (`?token=...`).',
    },
    noDatabase: true,
  })
  page(@Res() reply: FastifyReply): FastifyReply {
    return sendPage(reply, VERIFY_EMAIL_PAGE_CSP, VERIFY_EMAIL_PAGE_HTML);
  }

  @Get('page.js')
  @DocumentRoute(scriptDoc("The verification page's"))
  script(@Res() reply: FastifyReply): FastifyReply {
    return sendScript(reply, VERIFY_EMAIL_PAGE_SCRIPT);
  }

  @Get('page.css')
  @DocumentRoute(styleDoc("The verification page's"))
  style(@Res() reply: FastifyReply): FastifyReply {
    return sendStyle(reply, VERIFY_EMAIL_PAGE_CSS);
  }
}
