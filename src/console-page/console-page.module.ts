import { Module } from '@nestjs/common';
import { ConsoleFiles } from './console-files.js';
import { ConsolePageController } from './console-page.controller.js';

@Module({ controllers: [ConsolePageController], providers: [ConsoleFiles] })
export class ConsolePageModule {}
