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
    return reply
      .header('content-security-policy', VERIFY_EMAIL_PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(VERIFY_EMAIL_PAGE_HTML);
  }

  @Get('page.js')
  @DocumentRoute({
    summary: "The verification page's script",
    page: { produces: 'application/javascript', description: "The verification page's script." },
    noDatabase: true,
  })
  script(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(VERIFY_EMAIL_PAGE_SCRIPT);
  }

  @Get('page.css')
  @DocumentRoute({
    summary: "The verification page's style sheet",
    page: { produces: 'text/css', description: "The verification page's style sheet." },
    noDatabase: true,
  })
  style(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('text/css; charset=utf-8').send(VERIFY_EMAIL_PAGE_CSS);
  }
}
