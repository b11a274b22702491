import { Module } from '@nestjs/common';
import { ContentsController } from './contents.controller.js';
import { ContentsRepository } from './contents.repository.js';
import { ContentsService } from './contents.service.js';

/** A small real resource guarded by the contents.* permissions. */
@Module({
  controllers: [ContentsController],
  providers: [ContentsRepository, ContentsService],
})
export class ContentsModule {}
