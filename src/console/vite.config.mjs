// Builds the admin console (served by the service at /admin) into dist/console.
import preact from '@preact/preset-vite';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { defineConfig } from 'vite';

const HERE = import.meta.dirname;
/** The budget of the JavaScript the first screen loads, gzipped. */
const FIRST_SCREEN_BUDGET = 100 * 1024;

/**
 * Prints the gzipped size of the JavaScript the first screen loads (the entry chunk and every
 * chunk it imports statically) and fails the build past the budget.
 */
function firstScreenSize() {
  return {
    name: 'first-screen-size',
    apply: 'build',
    generateBundle(_options, bundle) {
      const entry = Object.values(bundle).find((file) => file.type === 'chunk' && file.isEntry);
      if (!entry) this.error('no entry chunk');
      const seen = new Set();
      const visit = (fileName) => {
        if (seen.has(fileName)) return;
        seen.add(fileName);
        for (const imported of bundle[fileName]?.imports ?? []) visit(imported);
      };
      visit(entry.fileName);
      let gzipped = 0;
      for (const fileName of seen) gzipped += gzipSync(bundle[fileName].code, { level: 9 }).length;
      const kib = (gzipped / 1024).toFixed(1);
      console.log(
        `admin console: first screen JavaScript ${kib} KiB gzipped (budget ${FIRST_SCREEN_BUDGET / 1024} KiB)`,
      );
      if (gzipped > FIRST_SCREEN_BUDGET) this.error(`first screen JavaScript is ${kib} KiB gzipped, over the budget`);
    },
  };
}

export default defineConfig({
  root: HERE,
  base: '/admin/',
  logLevel: 'warn',
  plugins: [preact(), firstScreenSize()],
  build: {
    outDir: path.resolve(HERE, '../../dist/console'),
    emptyOutDir: true,
    // Everything is a file of the service's origin: no data: URLs, no inline script.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
