import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { finalize, throwError, type Observable } from 'rxjs';
import { ADMIN_LIST_KEY } from '../common/admin-list.decorator.js';
import { rateLimited } from '../common/rate-limited.js';
import { AppConfig } from '../config/app-config.js';

/**
 * Caps the admin list requests (routes marked `@AdminList()`) one caller has in flight at
 * ADMIN_LIST_CONCURRENCY; past it 429 RATE_LIMITED with Retry-After. Counted per caller id and
 * per instance: behind N instances a caller may have N times the cap in flight, which still
 * bounds each instance's pool. A slot is freed when its response is done, failed or abandoned.
 */
@Injectable()
export class AdminListConcurrencyInterceptor implements NestInterceptor {
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (
      context.getType() !== 'http' ||
      !this.reflector.getAllAndOverride<boolean>(ADMIN_LIST_KEY, [context.getHandler(), context.getClass()])
    ) {
      return next.handle();
    }
    // The authentication guard has run: every admin list route needs a caller.
    const caller = context.switchToHttp().getRequest<{ user?: { id: string } }>().user?.id;
    if (!caller) return next.handle();
    const held = this.inFlight.get(caller) ?? 0;
    if (held >= this.config.adminLists.concurrency) {
      return throwError(() => rateLimited('Too many list requests at once. Wait for the previous ones to finish.', 1));
    }
    this.inFlight.set(caller, held + 1);
    return next.handle().pipe(finalize(() => this.release(caller)));
  }

  private release(caller: string): void {
    const held = (this.inFlight.get(caller) ?? 1) - 1;
    if (held > 0) this.inFlight.set(caller, held);
    else this.inFlight.delete(caller);
  }
}
