import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, throwError, type Observable } from 'rxjs';
import { clientOf } from '../common/client-info.js';
import { PrivilegeRefusal } from '../rbac/index.js';
import { AuditLog } from '../audit/index.js';

/**
 * Every refusal by the privilege policy leaves an `authz.escalation_refused` row: the actor, the
 * target, the rule and the permissions at stake, and the client address. Services throw the
 * refusal; only here is the request (and so the address) at hand.
 */
@Injectable()
export class PrivilegeRefusalAuditInterceptor implements NestInterceptor {
  constructor(private readonly audit: AuditLog) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (!(error instanceof PrivilegeRefusal) || context.getType() !== 'http') return throwError(() => error);
        const { actorId, actorKind, target, action, rule, missing } = error.facts;
        const client = clientOf(context.switchToHttp().getRequest<FastifyRequest>());
        return from(
          this.audit.record({
            type: 'authz.escalation_refused',
            actorId,
            actorKind,
            targetType: target.type,
            targetId: target.id,
            client,
            details: { action, rule, missing },
          }),
        ).pipe(mergeMap(() => throwError(() => error)));
      }),
    );
  }
}
