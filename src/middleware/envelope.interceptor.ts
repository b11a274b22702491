import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';

export interface SuccessBody<T> {
  success: true;
  data: T;
}

/** Wraps what a handler returns in the contract's `{success: true, data}` envelope. */
@Injectable()
export class EnvelopeInterceptor<T extends object> implements NestInterceptor<
  T,
  SuccessBody<T | Record<string, never>>
> {
  intercept(_context: ExecutionContext, next: CallHandler<T>): Observable<SuccessBody<T | Record<string, never>>> {
    return next.handle().pipe(map((data) => ({ success: true as const, data: data ?? {} })));
  }
}
