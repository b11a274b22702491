import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
  type HealthIndicatorFunction,
} from '@nestjs/terminus';
import { Public } from '@auth-rbac/nest-guard';
import { AppException } from '../common/app-exception.js';
import { SkipRateLimits } from '../common/rate-limits.js';
import { REDIS, type RedisClient } from '../infra/redis/redis-client.js';
import { DocumentRoute, ref } from '../common/route-doc.js';

@Public()
// A load balancer's probes must never be refused for being frequent.
@SkipRateLimits()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {}

  /** Liveness: the process serves HTTP. Never touches a dependency, so restarts are not triggered by them. */
  @Get()
  @DocumentRoute({ summary: 'Liveness: the process answers', data: ref('Liveness'), noDatabase: true })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness: the dependencies answer (the database, and Redis when configured); a load balancer
   * should route traffic here only then.
   */
  @Get('ready')
  @DocumentRoute({
    summary: 'Readiness: the database (and Redis when configured) answer',
    data: ref('Readiness'),
    statuses: { 503: 'SERVICE_UNAVAILABLE: not ready; `details` names what is down.' },
  })
  async ready(): Promise<HealthCheckResult> {
    const checks: HealthIndicatorFunction[] = [this.database.pingCheck('database').withTimeout(1500)];
    if (this.redis) checks.push(() => this.pingRedis(this.redis!));
    try {
      return await this.health.check(checks);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as HealthCheckResult;
      const details = Object.entries(result.details ?? {}).map(([check, state]) => ({ check, status: state.status }));
      throw new AppException('SERVICE_UNAVAILABLE', 'The service is not ready.', details);
    }
  }

  private async pingRedis(redis: NonNullable<RedisClient>) {
    const indicator = this.indicators.check('redis');
    try {
      await redisAnswers(redis, 1500);
      return indicator.up();
    } catch {
      return indicator.down();
    }
  }
}

/**
 * Commands fail at once while the client (re)connects, so wait (up to `ms`) for it to be ready,
 * then ping. The listener is removed on timeout, so probes during an outage leave nothing behind.
 */
function redisAnswers(redis: NonNullable<RedisClient>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', ping);
      reject(new Error('timeout'));
    }, ms);
    function ping() {
      redis.ping().then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }
    if (redis.status === 'ready') ping();
    else redis.once('ready', ping);
  });
}
