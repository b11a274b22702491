import type { FastifyRequest } from 'fastify';
import type { ClientInfo } from './session.service.js';

/** Who is calling, for sessions and limits: the socket address unless TRUST_PROXY says otherwise. */
export const clientOf = (request: FastifyRequest): ClientInfo => ({
  ip: request.ip,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : undefined,
});
