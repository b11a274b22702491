import { IntervalGate } from './interval-gate.js';

describe('IntervalGate', () => {
  it('at once: the first call is due, then none until the interval has passed since it', () => {
    const gate = new IntervalGate(1000, 'at once');
    const start = Date.now();
    expect(gate.due(start)).toBe(true);
    expect(gate.due(start)).toBe(false);
    expect(gate.due(start + 999)).toBe(false);
    expect(gate.due(start + 1000)).toBe(true);
    expect(gate.due(start + 1500)).toBe(false);
    expect(gate.due(start + 2000)).toBe(true);
  });

  it('after an interval: nothing is due until a whole interval after the gate was made', () => {
    const made = Date.now();
    const gate = new IntervalGate(60_000, 'after an interval');
    expect(gate.due(made)).toBe(false);
    expect(gate.due(made + 59_000)).toBe(false);
    expect(gate.due(Date.now() + 60_000)).toBe(true);
    expect(gate.due(Date.now() + 60_000)).toBe(false);
  });
});
