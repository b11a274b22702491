import { Catch, Injectable, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuditLog } from '../audit/index.js';
import { clientOf } from '../common/client-info.js';
import { toErrorResponse } from '../common/error-response.js';
import { PrivilegeRefusal } from '../rbac/index.js';

/**
 * Every error a handler, guard, pipe or interceptor throws leaves in the contract's shape; a
 * refusal by the privilege policy leaves an audit row first.
 */
@Catch()
@Injectable()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly audit: AuditLog) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    let error = exception;
    if (exception instanceof PrivilegeRefusal && host.getType() === 'http') {
      // Answered only once the row is written; if it cannot be, the answer is that failure.
      error = await this.recordRefusal(exception, request).then(
        () => exception,
        (failure: unknown) => failure,
      );
    }
    const { status, body, headers } = toErrorResponse(error, String(request.id));
    if (headers) void reply.headers(headers);
    void reply.status(status).send(body);
  }

  /**
   * Every refusal by the privilege policy leaves an `authz.escalation_refused` row: the actor, the
   * target, the rule and the permissions at stake, and the client address. Services throw the
   * refusal; only where the error leaves the service is the request (and so the address) at hand.
   */
  private recordRefusal(refusal: PrivilegeRefusal, request: FastifyRequest): Promise<unknown> {
    const { actorId, actorKind, target, action, rule, missing } = refusal.facts;
    return this.audit.record({
      type: 'authz.escalation_refused',
      actorId,
      actorKind,
      targetType: target.type,
      targetId: target.id,
      client: clientOf(request),
      details: { action, rule, missing },
    });
  }
}
