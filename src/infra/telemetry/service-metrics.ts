import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics. One registry per process, held at module level so that a
 * counter is one import and one call where the event happens, with no module wiring; gauges that
 * need the database are filled in at scrape time by MetricsService.
 */
export const metricsRegistry = new Registry();

// The process beside the service: CPU, resident memory and heap, event-loop lag, garbage
// collections, open handles (prom-client's defaults, `process_*` and `nodejs_*`).
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequests = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status, with their durations.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

export const logins = new Counter({
  name: 'auth_logins_total',
  help: 'Login attempts by method (email, mobile, otp, 2fa) and outcome (success, failure, locked, challenge).',
  labelNames: ['method', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const refreshReuse = new Counter({
  name: 'auth_refresh_reuse_total',
  help: 'Refresh tokens presented a second time (the session was revoked).',
  registers: [metricsRegistry],
});

export const lockouts = new Counter({
  name: 'auth_lockouts_total',
  help: 'Attempts refused because an account or challenge was locked out, by kind (password, 2fa).',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const rateLimitRefusals = new Counter({
  name: 'http_rate_limit_refusals_total',
  help: 'Requests refused with 429 RATE_LIMITED by the per-address or per-account limits.',
  registers: [metricsRegistry],
});

export const outboxDeliveries = new Counter({
  name: 'outbox_deliveries_total',
  help: 'Outgoing SMS (OTPs) and mails by channel, kind and outcome (sent, failed_attempt, given_up).',
  labelNames: ['channel', 'kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const outboxDepth = new Gauge({
  name: 'outbox_pending_messages',
  help: 'Messages waiting in the outbox (all instances), at scrape time.',
  registers: [metricsRegistry],
});

export const databasePool = new Gauge({
  name: 'database_pool_connections',
  help: "This instance's database pool: connections by state (total, idle, waiting clients).",
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
});

export const cacheLookups = new Counter({
  name: 'cache_lookups_total',
  help: 'In-process cache lookups by cache and result (hit, miss); the hit ratio is hit / (hit + miss).',
  labelNames: ['cache', 'result'] as const,
  registers: [metricsRegistry],
});
