import { Module } from '@nestjs/common';
import { PasskeyPageController } from './passkey-page.controller.js';

@Module({ controllers: [PasskeyPageController] })
export class PasskeyPageModule {}
