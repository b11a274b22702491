/**
 * Loaded with `--import` before the service's entry point: says that it watches ("watching date
 * formats"), then reports every `Intl.DateTimeFormat` really built in the process as it is built
 * ("date format built", with where), on standard error.
 */
const BuiltIn = Intl.DateTimeFormat;
function Reporting(locales, options) {
  const where = new Error().stack?.split('\n')[2]?.trim() ?? '';
  process.stderr.write(`date format built ${where}\n`);
  return new BuiltIn(locales, options);
}
Reporting.prototype = BuiltIn.prototype;
Reporting.supportedLocalesOf = BuiltIn.supportedLocalesOf;
Object.defineProperty(Intl, 'DateTimeFormat', { value: Reporting, writable: true, configurable: true });
process.stderr.write('watching date formats\n');
