/**
 * Housekeeping that a request or a poll does on the side, at most once per interval on each
 * instance (removing rows that expired long ago), instead of a timer of its own: `due()` answers
 * true when the last true is at least `intervalMs` ago, and starts the interval again.
 */
export class IntervalGate {
  private last: number;

  /** `first`: whether the first call may already be due, or only one after a whole interval. */
  constructor(
    private readonly intervalMs: number,
    first: 'at once' | 'after an interval',
  ) {
    this.last = first === 'at once' ? Number.NEGATIVE_INFINITY : Date.now();
  }

  due(now = Date.now()): boolean {
    if (now - this.last < this.intervalMs) return false;
    this.last = now;
    return true;
  }
}
