import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import { RESET_PAGE_CSP, RESET_PAGE_CSS, RESET_PAGE_HTML, RESET_PAGE_SCRIPT } from './reset-page.js';

/** The HTML page of the reset link (see reset-page.ts); a page, not the API, so no envelope. */
@Public()
@Controller('reset-password')
export class ResetPageController {
  @Get()
  page(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .header('content-security-policy', RESET_PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(RESET_PAGE_HTML);
  }

  @Get('page.js')
  script(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(RESET_PAGE_SCRIPT);
  }

  @Get('page.css')
  style(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('text/css; charset=utf-8').send(RESET_PAGE_CSS);
  }
}
