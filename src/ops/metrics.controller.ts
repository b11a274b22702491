import { Controller, Get, Headers, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import { AppException } from '../common/app-exception.js';
import { SkipRateLimits } from '../common/rate-limits.js';
import { MetricsService } from './metrics.service.js';
import { DocumentRoute } from '../common/route-doc.js';

/**
 * Prometheus scrapes; not the API, so no envelope and no access token (METRICS_TOKEN instead). In
 * production without METRICS_TOKEN the route does not exist (404).
 */
@Public()
// A scraper polls on a schedule; it must not be refused for it, nor use up a client's allowance.
@SkipRateLimits()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @DocumentRoute({
    summary: 'Prometheus metrics (a bearer METRICS_TOKEN when set)',
    page: { produces: 'text/plain', description: 'Prometheus text exposition format.' },
    statuses: { 401: 'UNAUTHENTICATED: METRICS_TOKEN is set and was not given.' },
    noDatabase: true,
  })
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    if (!this.metrics.served) throw new AppException('NOT_FOUND', 'Not found.');
    if (!this.metrics.mayScrape(authorization))
      throw new AppException('UNAUTHENTICATED', 'A valid metrics token is required.');
    await reply.type(this.metrics.contentType).send(await this.metrics.render());
  }
}
