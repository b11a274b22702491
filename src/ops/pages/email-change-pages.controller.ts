import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import { RESET_PAGE_CSP } from './reset-page.js';
import { CANCEL_EMAIL_CHANGE_PAGE, CONFIRM_EMAIL_PAGE } from './email-change-pages.js';
import { DocumentRoute } from '../../common/route-doc.js';
import { sendPage, sendScript, scriptDoc } from './page-replies.js';

/** The page of the email-change link (see email-change-pages.ts); a page, not the API, so no envelope. */
@Public()
@Controller('confirm-email')
export class ConfirmEmailPageController {
  @Get()
  @DocumentRoute({
    summary: 'The page an email-change link opens',
    page: {
      produces: 'text/html',
      description:
        'The page of an email-change link (`?token=...`): confirms it through `POST /api/account/email/confirm`.',
    },
    noDatabase: true,
  })
  page(@Res() reply: FastifyReply): FastifyReply {
    return sendPage(reply, RESET_PAGE_CSP, CONFIRM_EMAIL_PAGE.html);
  }

  @Get('page.js')
  @DocumentRoute(scriptDoc("The email-change page's", "The page's script."))
  script(@Res() reply: FastifyReply): FastifyReply {
    return sendScript(reply, CONFIRM_EMAIL_PAGE.script);
  }
}

/** The page of the cancel link sent to the old address. */
@Public()
@Controller('cancel-email-change')
export class CancelEmailChangePageController {
  @Get()
  @DocumentRoute({
    summary: 'The page the cancel link (sent to the old address) opens',
    page: {
      produces: 'text/html',
      description:
        'The page of the cancel link sent to the old address (`?token=...`): cancels through `POST /api/account/email/cancel`.',
    },
    noDatabase: true,
  })
  page(@Res() reply: FastifyReply): FastifyReply {
    return sendPage(reply, RESET_PAGE_CSP, CANCEL_EMAIL_CHANGE_PAGE.html);
  }

  @Get('page.js')
  @DocumentRoute(scriptDoc("The cancel page's", "The page's script."))
  script(@Res() reply: FastifyReply): FastifyReply {
    return sendScript(reply, CANCEL_EMAIL_CHANGE_PAGE.script);
  }
}
