/**
 * Date formats built while the service's modules load are built on their first use.
 *
 * `@nestjs/common` builds two `Intl.DateTimeFormat`s when it is first imported, for the
 * timestamps of its console logger, which this service never prints through (every line is
 * pino's JSON with an ISO time, `StartupLogger` and the logging module). Building one pages in
 * some 5 MB of ICU's locale and calendar data from the node binary and leaves about as much of
 * ICU's caches on the heap outside V8, for the life of the process: 9 to 11 MB of the resident set
 * of an instance, measured (docs/performance.md, "ICU's date data").
 *
 * Importing this module, before anything else, makes `Intl.DateTimeFormat` answer with a format
 * that builds the real one on its first use and hands every property to it; the entry point
 * puts the built-in constructor back (`restoreDateTimeFormat`) once its imports have run, so
 * that nothing built later is touched. A format deferred this way formats exactly as the
 * built-in would: it is the built-in, built later.
 */
const BuiltIn = Intl.DateTimeFormat;

function builtOnFirstUse(
  locales?: string | readonly string[],
  options?: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  let built: Intl.DateTimeFormat | undefined;
  const real = () => (built ??= new BuiltIn(locales as string | string[] | undefined, options));
  return new Proxy(Object.create(BuiltIn.prototype) as Intl.DateTimeFormat, {
    get(_placeholder, key) {
      const format = real();
      const value = Reflect.get(format, key) as unknown;
      // The prototype's methods check that `this` is a real format.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(format) : value;
    },
  });
}

function DateTimeFormat(locales?: string | readonly string[], options?: Intl.DateTimeFormatOptions) {
  return builtOnFirstUse(locales, options);
}
DateTimeFormat.prototype = BuiltIn.prototype;
DateTimeFormat.supportedLocalesOf = BuiltIn.supportedLocalesOf.bind(BuiltIn);

/** Makes `constructor` the global `Intl.DateTimeFormat`, with the built-in's property attributes. */
function install(constructor: unknown): void {
  Object.defineProperty(Intl, 'DateTimeFormat', { value: constructor, writable: true, configurable: true });
}

install(DateTimeFormat);

/** Puts the built-in `Intl.DateTimeFormat` back: formats built from now on are built at once. */
export function restoreDateTimeFormat(): void {
  install(BuiltIn);
}
