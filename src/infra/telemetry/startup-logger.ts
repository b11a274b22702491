import type { LoggerService } from '@nestjs/common';
import { pino, stdTimeFunctions, type Logger as Pino } from 'pino';
import { redactSecrets } from './log-redaction.js';

/**
 * The logger of the process before the service's own (LoggingModule's pino) exists, and after it
 * failed to come up: the same JSON line shape (`level` as a name, ISO `time`, `context`, `msg`),
 * so that every line from the first to the last is one format a collector can read. Errors give
 * their message only: a start-up failure is one line, never a stack trace on standard output.
 */
export class StartupLogger implements LoggerService {
  private readonly pino: Pino;

  constructor(destination: NodeJS.WritableStream = process.stdout) {
    this.pino = pino(
      {
        timestamp: stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }), log: (object) => redactSecrets(object) },
      },
      destination,
    );
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write(NARRATION.has(contextOf(rest) ?? '') ? 'debug' : 'info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    const context = contextOf(rest);
    // Nest's exception zone reports the start-up failure that main.ts then reports once itself.
    if (context === 'ExceptionHandler') return;
    // A retried connection is not yet a failure: the failure, if it comes, is main.ts's line.
    this.write(context === 'TypeOrmModule' ? 'warn' : 'error', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', message: unknown, rest: unknown[]) {
    const context = contextOf(rest);
    this.pino[level](context ? { context } : {}, oneLine(message));
  }
}

/** Nest's narration of its start (a line per module), kept below the default level. */
const NARRATION = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Nest passes the context last; a stack, when given, comes before it and is left out. */
function contextOf(rest: unknown[]): string | undefined {
  const last = rest.at(-1);
  return typeof last === 'string' && !last.includes('\n') ? last : undefined;
}

/** An error's message (and its code, e.g. ECONNREFUSED), any other value as text, on one line. */
export function oneLine(value: unknown): string {
  if (value instanceof Error) {
    const code = (value as Error & { code?: unknown }).code;
    const text = value.message || value.name;
    return (typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text).replace(/\s*\n\s*/g, ' ');
  }
  return (typeof value === 'string' ? value : JSON.stringify(value)).replace(/\s*\n\s*/g, ' ');
}
