import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpRequests, rateLimitRefusals } from './service-metrics.js';

/**
 * One observation per answered request. The route is the registered pattern (`/api/users/:id`),
 * never the raw URL, so ids and probes for unknown paths cannot grow the label set without end.
 */
export function countRequest(request: FastifyRequest, reply: FastifyReply): void {
  const route = request.routeOptions.url ?? 'unmatched';
  const status = String(reply.statusCode);
  httpRequests.observe({ method: request.method, route, status }, reply.elapsedTime / 1000);
  if (reply.statusCode === 429) rateLimitRefusals.inc();
}
