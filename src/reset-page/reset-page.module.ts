import { Module } from '@nestjs/common';
import { CancelEmailChangePageController, ConfirmEmailPageController } from './email-change-pages.controller.js';
import { ResetPageController } from './reset-page.controller.js';

/** The small HTML pages that links in mails open. */
@Module({ controllers: [ResetPageController, ConfirmEmailPageController, CancelEmailChangePageController] })
export class ResetPageModule {}
