import { Module } from '@nestjs/common';
import { ResetPageController } from './reset-page.controller.js';

@Module({ controllers: [ResetPageController] })
export class ResetPageModule {}
