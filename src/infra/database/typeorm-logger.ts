import { Logger } from '@nestjs/common';
import { AbstractLogger, type LogLevel, type LogMessage, type LoggerOptions } from 'typeorm';

/**
 * TypeORM's own messages (warnings, migrations, a pool that lost a connection) leave through
 * Nest's logger, so in the service they are JSON lines with the rest (src/infra/telemetry/), not bare
 * console output. Queries and their parameters are never logged: they may hold hashes.
 */
export class TypeOrmNestLogger extends AbstractLogger {
  private readonly logger = new Logger('TypeORM');

  constructor(options: LoggerOptions) {
    super(options);
  }

  protected writeLog(
    level: LogLevel,
    logMessage: LogMessage | string | number | (LogMessage | string | number)[],
  ): void {
    for (const message of this.prepareLogMessages(logMessage, { highlightSql: false })) {
      const text = message.prefix ? `${message.prefix} ${String(message.message)}` : String(message.message);
      switch (message.type ?? level) {
        case 'warn':
        case 'query-slow':
          this.logger.warn(text);
          break;
        case 'error':
        case 'query-error':
          this.logger.error(text);
          break;
        default:
          this.logger.log(text);
      }
    }
  }
}

/**
 * pg emits `error` on the pool when an idle connection dies (the server restarted, a proxy cut
 * it); without a listener that event would end the process. The pool drops that connection and
 * opens a new one when a request needs it, so a warning is all this calls for.
 */
export function logPoolError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  new Logger('Database').warn(`An idle PostgreSQL connection failed and was dropped: ${message}`);
}
