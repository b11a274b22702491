import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

@Module({
  imports: [OutboxModule],
  controllers: [MetricsController],
  providers: [MetricsService],
})
export class MetricsModule {}
