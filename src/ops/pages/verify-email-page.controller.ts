import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import {
  VERIFY_EMAIL_PAGE_CSP,
  VERIFY_EMAIL_PAGE_CSS,
  VERIFY_EMAIL_PAGE_HTML,
  VERIFY_EMAIL_PAGE_SCRIPT,
} from './verify-email-page.js';

/** The HTML page of the verification link (see verify-email-page.ts); a page, not the API. */
@Public()
@Controller('verify-email')
export class VerifyEmailPageController {
  @Get()
  page(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .header('content-security-policy', VERIFY_EMAIL_PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(VERIFY_EMAIL_PAGE_HTML);
  }

  @Get('page.js')
  script(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(VERIFY_EMAIL_PAGE_SCRIPT);
  }

  @Get('page.css')
  style(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('text/css; charset=utf-8').send(VERIFY_EMAIL_PAGE_CSS);
  }
}
