import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import { RESET_PAGE_CSP, RESET_PAGE_CSS, RESET_PAGE_HTML, RESET_PAGE_SCRIPT } from './reset-page.js';

/** The HTML page of the reset link (see reset-page.ts); a page, not the API, so no envelope. */
@Public()
@Controller('reset-password')
export class ResetPageController {
  @Get()
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The form that sets a new password with the token of a reset link (`?token=...`).' })
  page(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .header('content-security-policy', RESET_PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(RESET_PAGE_HTML);
  }

  @Get('page.js')
  @ApiProduces('application/javascript')
  @ApiOkResponse({ description: "The reset page's script." })
  script(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(RESET_PAGE_SCRIPT);
  }

  @Get('page.css')
  @ApiProduces('text/css')
  @ApiOkResponse({ description: "The reset page's style sheet." })
  style(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('text/css; charset=utf-8').send(RESET_PAGE_CSS);
  }
}
