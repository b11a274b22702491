import { Module } from '@nestjs/common';
import { createRequire } from 'node:module';
import { stdSerializers, stdTimeFunctions, type DestinationStream, type Level, type LoggerOptions } from 'pino';
import type PinoPretty from 'pino-pretty';
import { AppConfig } from '../../config/app-config.js';
import { REDACT_PATHS, REDACTED, redactSecrets } from './log-redaction.js';
import { ServiceLog } from './service-log.js';

/** LOG_LEVEL speaks Nest's level names; pino has its own for the same ladder. */
export const PINO_LEVELS: Record<AppConfig['logLevel'], Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * One format, pino's, in two renderings: readable lines (pino-pretty) for a person at a terminal
 * in development (APP_ENV=development or unset, standard output a TTY), one JSON object a line
 * everywhere else (production, staging, tests, and output piped to a file or a collector).
 */
export function logFormat(config: AppConfig, stdout: { isTTY?: boolean }): 'pretty' | 'json' {
  return config.env === 'development' && stdout.isTTY === true ? 'pretty' : 'json';
}

/**
 * pino-pretty is loaded where a person reads the lines, and only there: JSON everywhere else never
 * needs it, and it holds 2.4 MB of resident memory once imported (measured after pino).
 */
const requireOnUse = createRequire(import.meta.url);

/** Where pino writes: standard output as it is, or through pino-pretty (in process, synchronous). */
function logDestination(config: AppConfig, stdout: NodeJS.WritableStream & { isTTY?: boolean }): DestinationStream {
  if (logFormat(config, stdout) === 'json') return stdout as DestinationStream;
  const pinoPretty = requireOnUse('pino-pretty') as typeof PinoPretty;
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
 * The options and the destination of the service's pino logger (see `logFormat` for the
 * rendering): the application's own `Logger` calls and one line per request (`ServiceLog`).
 */
export function loggerOptions(
  config: AppConfig,
  stdout: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): [LoggerOptions, DestinationStream] {
  return [
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
        // Errors may carry SQL parameters (hashes) or a driver's detail: only the redacted shape.
        // pino's own serialization first (message, stack, type: an Error's own fields are not enumerable).
        err: (error: Error) => {
          const { parameters: _parameters, ...rest } = redactSecrets({ ...stdSerializers.err(error) });
          return rest;
        },
      },
    },
    logDestination(config, stdout),
  ];
}

@Module({
  providers: [
    {
      provide: ServiceLog,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new ServiceLog(...loggerOptions(config)),
    },
  ],
  exports: [ServiceLog],
})
export class LoggingModule {}
