import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from '../common/error-response.js';

/** Every error a handler, guard, pipe or interceptor throws leaves in the contract's shape. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { status, body, headers } = toErrorResponse(exception, String(request.id));
    if (headers) void reply.headers(headers);
    void reply.status(status).send(body);
  }
}
