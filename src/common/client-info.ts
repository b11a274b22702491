import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling, as sessions, audit events and limits record it. */
export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

/** Who is calling, for sessions and limits: the socket address unless TRUST_PROXY says otherwise. */
export const clientOf = (request: FastifyRequest): ClientInfo => ({
  ip: request.ip,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : undefined,
});

/** The calling client of a route (`clientOf` its request): `@Client() client: ClientInfo`. */
export const Client = createParamDecorator((_data: unknown, context: ExecutionContext): ClientInfo =>
  clientOf(context.switchToHttp().getRequest<FastifyRequest>()),
);
