/**
 * The service as `main.ts` starts it, plus the benchmark's baselines, which exist only in this
 * build (never in the service): a bare route, the same route behind a guard that only verifies
 * the access token's signature, and a raw Argon2id verify with the service's parameters.
 */
// First, as in main.ts: the date formats built while the modules load wait for a first use.
import { restoreDateTimeFormat } from '../src/infra/runtime/date-time-formats-on-first-use.js';
import 'reflect-metadata';
import {
  CanActivate,
  Controller,
  Get,
  Injectable,
  Param,
  ParseIntPipe,
  Post,
  Module,
  type ExecutionContext,
  type OnModuleInit,
  UseGuards,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { hash, verify } from '@node-rs/argon2';
import { getHeapSpaceStatistics } from 'node:v8';
import type { FastifyRequest } from 'fastify';
import { AppModule } from '../src/app.module.js';
import { Public } from '@auth-rbac/nest-guard';
import { SigningKeys } from '../src/sessions/signing-keys.js';
import { IntrospectionService } from '../src/introspection/introspection.service.js';
import { AppConfig, loadAppConfig } from '../src/config/app-config.js';
import { createApp } from '../src/http-app.js';
import { insertBulkUsers } from '../test/support/bulk-users.js';
import { DataSource } from 'typeorm';

restoreDateTimeFormat();

/** Baseline B's guard: the signature (with the service's own keys, algorithm pinned) and expiry, nothing else. */
@Injectable()
class SignatureOnlyGuard implements CanActivate, OnModuleInit {
  private keys!: SigningKeys;

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    this.keys = this.moduleRef.get(SigningKeys, { strict: false });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
    const token = typeof header === 'string' ? /^bearer +(\S+)$/i.exec(header)?.[1] : undefined;
    if (!token) return false;
    try {
      await this.keys.verify(token, 'access');
      return true;
    } catch {
      return false;
    }
  }
}

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated builds cannot inline). */
const ARGON2ID = 2;
const VERIFY_PASSWORD = 'Bench-Argon2-Baseline-Password';

@Public()
@Controller('bench')
class BaselinesController implements OnModuleInit {
  private passwordHash = '';

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Loads `count` users named `${prefix}-${n}@bulk.example.com` (the tests' fixture), then
   * checkpoints, so the writes do not land on the measurements that follow.
   */
  @Post('users/:prefix/:count')
  async bulkUsers(@Param('prefix') prefix: string, @Param('count', ParseIntPipe) count: number) {
    await insertBulkUsers(this.dataSource, count, { prefix, roleNames: ['user'], roleEvery: 5 });
    await this.dataSource.query('CHECKPOINT');
    return { inserted: count };
  }

  async onModuleInit(): Promise<void> {
    const { memoryKib, iterations, parallelism } = this.config.passwordHashing;
    this.passwordHash = await hash(VERIFY_PASSWORD, {
      algorithm: ARGON2ID,
      memoryCost: memoryKib,
      timeCost: iterations,
      parallelism,
    });
  }

  /** Baseline A: the same HTTP stack (plugins, global rate limit, envelope), no authentication. */
  @Get('bare')
  bare() {
    return { ok: true };
  }

  /** Baseline B. */
  @Get('signature-only')
  @UseGuards(SignatureOnlyGuard)
  signatureOnly() {
    return { ok: true };
  }

  /**
   * Where the service's memory is (MB): V8's heap (used and reserved, by space), memory held
   * outside it (Buffers, WebAssembly), and the resident set; for the benchmark's memory notes.
   */
  @Get('memory')
  memory() {
    const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
    const usage = process.memoryUsage();
    return {
      rss: mb(usage.rss),
      heap_total: mb(usage.heapTotal),
      heap_used: mb(usage.heapUsed),
      external: mb(usage.external),
      array_buffers: mb(usage.arrayBuffers),
      spaces: Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, mb(space.space_size)])),
    };
  }

  /** Baseline C: one Argon2id verify of a right password, as a sign-in makes. */
  @Get('argon2-verify')
  async argon2Verify() {
    return { ok: await verify(this.passwordHash, VERIFY_PASSWORD) };
  }
}

/** Introspection calls the service has answered, for the consumer side's "calls per 1,000 requests". */
@Public()
@Controller('bench')
class IntrospectionCountController implements OnModuleInit {
  private count = 0;

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    const introspection = this.moduleRef.get(IntrospectionService, { strict: false });
    const answer = introspection.introspect.bind(introspection);
    introspection.introspect = (token: string) => (this.count++, answer(token));
  }

  @Get('introspections')
  introspections() {
    return { count: this.count };
  }
}

@Module({
  imports: [AppModule],
  controllers: [BaselinesController, IntrospectionCountController],
  providers: [SignatureOnlyGuard],
})
class BenchAppModule {}

async function bootstrap(): Promise<void> {
  const config = loadAppConfig();
  const app = await createApp(BenchAppModule, config);
  await app.listen(config.http.port, '127.0.0.1');
}

bootstrap().catch((error: unknown) => {
  console.error('Failed to start:', error);
  process.exit(1);
});
