import { Module } from '@nestjs/common';
import { ResetPageController } from './reset-page.controller.js';
import { VerifyEmailPageController } from './verify-email-page.controller.js';

@Module({ controllers: [ResetPageController, VerifyEmailPageController] })
export class ResetPageModule {}
