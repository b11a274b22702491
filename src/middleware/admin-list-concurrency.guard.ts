import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { ADMIN_LIST_KEY } from '../common/admin-list.decorator.js';
import { rateLimited } from '../common/rate-limited.js';
import { AppConfig } from '../config/app-config.js';

/**
 * Caps the admin list requests (routes marked `@AdminList()`) one caller has in flight at
 * ADMIN_LIST_CONCURRENCY; past it 429 RATE_LIMITED with Retry-After. Counted per caller id and
 * per instance: behind N instances a caller may have N times the cap in flight, which still
 * bounds each instance's pool. A slot is freed when its response is closed: sent, failed or
 * abandoned by the client.
 *
 * A guard, the last one (the caller is known, every other guard has let the request through),
 * rather than an interceptor: a route that is not a list pays one lookup, not a step in Nest's
 * interceptor chain.
 */
@Injectable()
export class AdminListConcurrencyGuard implements CanActivate {
  private readonly inFlight = new Map<string, number>();
  /** Whether a route is a list, read once per route: decorators set it when a class is defined. */
  private readonly lists = new WeakMap<object, boolean>();

  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http' || !this.isList(context)) return true;
    // The authentication guard has run: every admin list route needs a caller.
    const caller = context.switchToHttp().getRequest<{ user?: { id: string } }>().user?.id;
    if (!caller) return true;
    const held = this.inFlight.get(caller) ?? 0;
    if (held >= this.config.adminLists.concurrency) {
      throw rateLimited('Too many list requests at once. Wait for the previous ones to finish.', 1);
    }
    this.inFlight.set(caller, held + 1);
    context
      .switchToHttp()
      .getResponse<FastifyReply>()
      .raw.once('close', () => this.release(caller));
    return true;
  }

  private isList(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let list = this.lists.get(handler);
    if (list === undefined) {
      list = this.reflector.getAllAndOverride<boolean>(ADMIN_LIST_KEY, [handler, context.getClass()]) === true;
      this.lists.set(handler, list);
    }
    return list;
  }

  private release(caller: string): void {
    const held = (this.inFlight.get(caller) ?? 1) - 1;
    if (held > 0) this.inFlight.set(caller, held);
    else this.inFlight.delete(caller);
  }
}
