import type { LoggerService } from '@nestjs/common';
import { format } from 'node:util';

/** Records every message of every level the application logs, with its context and extra arguments. */
export class RecordingLogger implements LoggerService {
  readonly lines: string[] = [];
  private record(level: string, message: unknown, params: unknown[]): void {
    this.lines.push(`${level} ${format(message, ...params)}`);
  }
  log(message: unknown, ...params: unknown[]) {
    this.record('log', message, params);
  }
  error(message: unknown, ...params: unknown[]) {
    this.record('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]) {
    this.record('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]) {
    this.record('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]) {
    this.record('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]) {
    this.record('fatal', message, params);
  }
}
