/**
 * Loaded with `--import` before the service's entry point: says that it watches ("watching package
 * loads"), then reports every file the process loads from a package named in WATCHED_PACKAGES
 * (comma-separated) as it is loaded ("package loaded: <name>"), on standard error.
 */
import { registerHooks } from 'node:module';

const watched = (process.env.WATCHED_PACKAGES ?? '').split(',').filter(Boolean);
registerHooks({
  load(url, context, nextLoad) {
    for (const name of watched)
      if (url.includes(`/node_modules/${name}/`)) process.stderr.write(`package loaded: ${name}\n`);
    return nextLoad(url, context);
  },
});
process.stderr.write('watching package loads\n');
