import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import { RESET_PAGE_CSP, RESET_PAGE_CSS, RESET_PAGE_HTML, RESET_PAGE_SCRIPT } from './reset-page.js';
import { DocumentRoute } from '../../common/route-doc.js';

/** The HTML page of the reset link (see reset-page.ts); a page, not the API, so no envelope. */
@Public()
@Controller('reset-password')
export class ResetPageController {
  @Get()
  @DocumentRoute({
    summary: 'The password-reset page a mailed link opens',
    page: {
      produces: 'text/html',
      description: 'The form that sets a new password with the token of a reset link (`?token=...`).',
    },
    noDatabase: true,
  })
  page(@Res() reply: FastifyReply): FastifyReply {
    return reply
      .header('content-security-policy', RESET_PAGE_CSP)
      .type('text/html; charset=utf-8')
      .send(RESET_PAGE_HTML);
  }

  @Get('page.js')
  @DocumentRoute({
    summary: "The reset page's script",
    page: { produces: 'application/javascript', description: "The reset page's script." },
    noDatabase: true,
  })
  script(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('application/javascript; charset=utf-8').send(RESET_PAGE_SCRIPT);
  }

  @Get('page.css')
  @DocumentRoute({
    summary: "The reset page's style sheet",
    page: { produces: 'text/css', description: "The reset page's style sheet." },
    noDatabase: true,
  })
  style(@Res() reply: FastifyReply): FastifyReply {
    return reply.type('text/css; charset=utf-8').send(RESET_PAGE_CSS);
  }
}
