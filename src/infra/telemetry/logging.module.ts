import { Module } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule, type Params } from 'nestjs-pino';
import { stdTimeFunctions, type DestinationStream, type Level } from 'pino';
import pinoPretty from 'pino-pretty';
import { AppConfig } from '../../config/app-config.js';
import { REDACT_PATHS, REDACTED, redactSecrets, redactUrl } from './log-redaction.js';

/** LOG_LEVEL speaks Nest's level names; pino has its own for the same ladder. */
export const PINO_LEVELS: Record<AppConfig['logLevel'], Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/** What the request line keeps of a request: never its body, never a credential. */
interface SerializedRequest {
  id: unknown;
  method: string;
  url: string;
  headers: Record<string, unknown>;
  remoteAddress?: string;
  raw?: IncomingMessage & { ip?: string };
}

/**
 * One format, pino's, in two renderings: readable lines (pino-pretty) for a person at a terminal
 * in development (APP_ENV=development or unset, standard output a TTY), one JSON object a line
 * everywhere else (production, staging, tests, and output piped to a file or a collector).
 */
export function logFormat(config: AppConfig, stdout: { isTTY?: boolean }): 'pretty' | 'json' {
  return config.env === 'development' && stdout.isTTY === true ? 'pretty' : 'json';
}

/** Where pino writes: standard output as it is, or through pino-pretty (in process, synchronous). */
function logDestination(config: AppConfig, stdout: NodeJS.WritableStream & { isTTY?: boolean }): DestinationStream {
  if (logFormat(config, stdout) === 'json') return stdout as DestinationStream;
  return pinoPretty({
    destination: stdout,
    sync: true,
    colorize: stdout === process.stdout,
    translateTime: 'SYS:HH:MM:ss.l',
    // A request line reads "request completed POST /api/auth/login 401 in 141 ms"; the JSON keeps the full objects.
    ignore: 'pid,hostname,context,req,res,responseTime',
    messageFormat:
      '{if context}[{context}] {end}{msg}{if req.method} {req.method} {req.url}{end}{if res.statusCode} {res.statusCode} in {responseTime} ms{end}',
  });
}

/**
 * Structured logs on standard output through pino (see `logFormat` for the rendering): the application's own `Logger` calls
 * (once `main.ts` hands Nest this logger) and one line per request from pino-http, all carrying
 * the request's id (Fastify's, the one in the `X-Request-Id` header and in 500 bodies).
 */
export function buildLoggerParams(
  config: AppConfig,
  stdout: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): Params {
  return {
    pinoHttp: [
      {
        level: PINO_LEVELS[config.logLevel],
        timestamp: stdTimeFunctions.isoTime,
        formatters: {
          level: (label) => ({ level: label }),
          // Anything an application log passes as an object is censored at any depth.
          log: (object) => redactSecrets(object),
        },
        redact: { paths: REDACT_PATHS, censor: REDACTED },
        serializers: {
          req: (req: SerializedRequest) => ({
            id: req.id,
            method: req.method,
            url: redactUrl(req.url),
            remoteAddress: req.raw?.ip ?? req.remoteAddress,
            // The client's X-Request-Id is `id` when well-formed, and never logged as free text.
            headers: redactSecrets(omit(req.headers, 'x-request-id')),
          }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
          // Errors may carry SQL parameters (hashes) or a driver's detail: only the redacted shape.
          // pino-http hands this pino's own serialization of the error.
          err: (error: Record<string, unknown>) => {
            const { parameters: _parameters, ...rest } = redactSecrets({ ...error });
            return rest;
          },
        },
        // Fastify assigned the id already (X-Request-Id when well-formed, else a UUID); middie
        // copies it to the raw request pino-http sees.
        genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? 'unknown',
        // Lines logged while serving a request carry only its id; the closing line carries the rest.
        quietReqLogger: true,
        // 503 is the database being away (already logged once per request as a warning); other
        // 5xx are bugs. Load balancer probes stay below info.
        customLogLevel: (req: IncomingMessage, res: ServerResponse, error?: Error) => {
          if (res.statusCode === 503) return 'warn';
          if (error || res.statusCode >= 500) return 'error';
          return req.url?.startsWith('/health') ? 'debug' : 'info';
        },
        // The exception filter logs the real error with this request's id; pino-http's own
        // stand-in ("failed with status code 500") would only add a stack of its internals.
        customErrorObject: (
          _req: IncomingMessage,
          _res: ServerResponse,
          _error: Error,
          value: Record<string, unknown>,
        ) => ({
          res: value.res,
          responseTime: value.responseTime,
        }),
      },
      logDestination(config, stdout),
    ],
  };
}

@Module({
  imports: [LoggerModule.forRootAsync({ inject: [AppConfig], useFactory: buildLoggerParams })],
})
export class LoggingModule {}

function omit(headers: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _omitted, ...rest } = headers;
  return rest;
}
