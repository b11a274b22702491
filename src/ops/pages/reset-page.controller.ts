import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import { RESET_PAGE_CSP, RESET_PAGE_CSS, RESET_PAGE_HTML, RESET_PAGE_SCRIPT } from './reset-page.js';
import { DocumentRoute } from '../../common/route-doc.js';
import { sendPage, sendScript, sendStyle, scriptDoc, styleDoc } from './page-replies.js';

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
    return sendPage(reply, RESET_PAGE_CSP, RESET_PAGE_HTML);
  }

  @Get('page.js')
  @DocumentRoute(scriptDoc("The reset page's"))
  script(@Res() reply: FastifyReply): FastifyReply {
    return sendScript(reply, RESET_PAGE_SCRIPT);
  }

  @Get('page.css')
  @DocumentRoute(styleDoc("The reset page's"))
  style(@Res() reply: FastifyReply): FastifyReply {
    return sendStyle(reply, RESET_PAGE_CSS);
  }
}
