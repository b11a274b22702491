import type { LoggerService } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Level, type Logger, type LoggerOptions } from 'pino';
import { redactSecrets, redactUrl } from './log-redaction.js';

/** The request being served: its id, and its logger once a line is logged for it. */
interface RequestScope {
  readonly id: string;
  logger?: Logger;
}

/**
 * The service's log: one pino logger for the application's own lines and one line per request,
 * every line logged while serving a request carrying that request's id (`reqId`: Fastify's, the
 * one in the `X-Request-Id` header and in 500 bodies).
 *
 * Why not a logging middleware (pino-http): it built two child loggers per request, the first
 * with the request serialized and redacted, whether or not a line would be written, and it ran
 * through Nest's middleware matching on every request: together a fifth of a who-am-I request's
 * CPU. Here a request costs its scope (an id in AsyncLocalStorage); a child logger is made only
 * when a line is logged for it, and the request line only when its level is on.
 */
export class ServiceLog {
  readonly root: Logger;
  private readonly scope = new AsyncLocalStorage<RequestScope>();

  constructor(options: LoggerOptions, destination: DestinationStream) {
    this.root = pino(options, destination);
  }

  /** The logger for a line logged now: the request's (with its id) while serving one, else the root. */
  current(): Logger {
    const scope = this.scope.getStore();
    if (!scope) return this.root;
    return (scope.logger ??= this.root.child({ reqId: scope.id }));
  }

  /**
   * Serves every request of `fastify` in its own scope (the first hook, so that everything after
   * it runs inside) and writes its line once the response is sent.
   */
  recordRequests(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', (request, _reply, done) => this.scope.run({ id: request.id }, done));
    fastify.addHook('onResponse', (request, reply, done) => {
      this.requestLine(request, reply);
      done();
    });
  }

  /**
   * "request completed", or "request errored" for a 5xx (the exception filter has logged the
   * error itself with the same id). A 503 is the database being away (already logged once per
   * request as a warning); other 5xx are bugs; load balancer probes stay below info.
   */
  private requestLine(request: FastifyRequest, reply: FastifyReply): void {
    const statusCode = reply.statusCode;
    const url = request.url;
    const level: Level =
      statusCode === 503 ? 'warn' : statusCode >= 500 ? 'error' : url.startsWith('/health') ? 'debug' : 'info';
    if (!this.root.isLevelEnabled(level)) return;
    this.root[level](
      {
        reqId: request.id,
        // What the line keeps of a request: never its body, never a credential. The client's
        // X-Request-Id is `id` when well-formed, and never logged as free text.
        req: {
          id: request.id,
          method: request.method,
          url: redactUrl(url),
          remoteAddress: request.ip,
          headers: redactSecrets(withoutRequestId(request.headers)),
        },
        res: { statusCode },
        responseTime: Math.round(reply.elapsedTime),
      },
      statusCode >= 500 ? 'request errored' : 'request completed',
    );
  }
}

function withoutRequestId(headers: Record<string, unknown>): Record<string, unknown> {
  const { ['x-request-id']: _omitted, ...rest } = headers;
  return rest;
}

type NestLevel = 'verbose' | 'debug' | 'log' | 'warn' | 'error' | 'fatal';
const PINO_METHOD: Record<NestLevel, Level> = {
  verbose: 'trace',
  debug: 'debug',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};

/** Nest's own start-up narration: a line per module and per route (about 80), kept for LOG_LEVEL=debug. */
const START_UP_NARRATION = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/**
 * Nest's `Logger` (every `new Logger('X').log(...)`) through the service's log: the last extra
 * argument is the context, an object message is merged into the line, an Error is `err`; Nest's
 * start-up narration is written at debug.
 */
export class NestLogLines implements LoggerService {
  constructor(private readonly serviceLog: ServiceLog) {}

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('verbose', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    this.write(typeof context === 'string' && START_UP_NARRATION.has(context) ? 'debug' : 'log', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(nestLevel: NestLevel, message: unknown, rest: unknown[]): void {
    const level = PINO_METHOD[nestLevel];
    if (!this.serviceLog.root.isLevelEnabled(level)) return;
    const line: Record<string, unknown> = {};
    const params = rest.length > 0 ? rest.slice(0, -1) : [];
    if (rest.length > 0) line.context = rest.at(-1);
    const logger = this.serviceLog.current();
    if (message instanceof Error) {
      line.err = message;
      logger[level](line, ...(params as []));
    } else if (typeof message === 'object' && message !== null) {
      logger[level](Object.assign(line, message), ...(params as []));
    } else if (isNestStackTrace(nestLevel, message, params)) {
      // Nest's exception handlers call error(message, stack, context): one error with that stack.
      const error = new Error(message as string);
      error.stack = params[0] as string;
      line.err = error;
      logger[level](line);
    } else {
      logger[level](line, String(message), ...(params as []));
    }
  }
}

function isNestStackTrace(level: NestLevel, message: unknown, params: unknown[]): boolean {
  return (
    level === 'error' &&
    typeof message === 'string' &&
    params.length === 1 &&
    typeof params[0] === 'string' &&
    /\n\s*at /.test(params[0])
  );
}
