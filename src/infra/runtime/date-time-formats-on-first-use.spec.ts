type Constructor = typeof Intl.DateTimeFormat;

describe('date formats built while the modules load', () => {
  const BuiltIn = Intl.DateTimeFormat;
  const put = (value: unknown) =>
    Object.defineProperty(Intl, 'DateTimeFormat', { value, writable: true, configurable: true });
  /** How many real formats were built: the module defers the constructor it finds, this one. */
  let built = 0;
  let restoreDateTimeFormat: () => void;

  beforeAll(async () => {
    function Counting(locales?: string | string[], options?: Intl.DateTimeFormatOptions) {
      built += 1;
      return new BuiltIn(locales, options);
    }
    Counting.prototype = BuiltIn.prototype;
    Counting.supportedLocalesOf = BuiltIn.supportedLocalesOf;
    put(Counting);
    ({ restoreDateTimeFormat } = await import('./date-time-formats-on-first-use.js'));
  });

  afterAll(() => put(BuiltIn));

  const options: Intl.DateTimeFormatOptions = {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    timeZone: 'UTC',
  };
  const moment = Date.UTC(2026, 10, 28, 3, 4, 5);

  it('builds no format until one is used, then builds it once and formats as the built-in does', () => {
    const before = built;
    const deferred = new (Intl.DateTimeFormat as Constructor)('en-GB', options);
    expect(built).toBe(before);

    expect(deferred.format(moment)).toBe(new BuiltIn('en-GB', options).format(moment));
    expect(deferred.format(moment)).toBe('28/11/2026, 03:04:05');
    expect(built).toBe(before + 1);
  });

  it('answers as a built-in format: instanceof, resolvedOptions, formatToParts, a detached format', () => {
    const deferred = new (Intl.DateTimeFormat as Constructor)('de-DE', options);
    const real = new BuiltIn('de-DE', options);
    expect(deferred).toBeInstanceOf(BuiltIn);
    expect(deferred.resolvedOptions()).toEqual(real.resolvedOptions());
    expect(deferred.formatToParts(moment)).toEqual(real.formatToParts(moment));
    const { format } = deferred;
    expect([moment].map(format)).toEqual([real.format(moment)]);
    expect(Intl.DateTimeFormat.supportedLocalesOf(['de-DE'])).toEqual(['de-DE']);
  });

  it('puts the constructor it found back: formats built afterwards are built at once', () => {
    restoreDateTimeFormat();
    const before = built;
    new (Intl.DateTimeFormat as Constructor)('en-GB', options);
    expect(built).toBe(before + 1);
  });
});
