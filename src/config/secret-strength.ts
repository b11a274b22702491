import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { createRequire } from 'node:module';

let estimator: ZxcvbnFactory | undefined;

/**
 * True when zxcvbn (a maintained strength estimator, with its common-password and keyboard
 * dictionaries) rates the secret at its highest score: repeats (`'a' * 64`), keyboard walks and
 * words from the dictionaries are guessable whatever their length.
 *
 * Only the start-up checks of production ask, a handful of secrets at once; the estimator and its
 * dictionaries (7.7 MB of heap once built) are loaded on the first of them and let go once that
 * start-up step is over (what Node's module loader keeps of their compiled code, 3.6 MB, stays),
 * instead of being imported by every process and kept for its whole life.
 */
export function isGuessableSecret(secret: string): boolean {
  if (!estimator) {
    // A require of its own: the module it belongs to lists what it loaded, and goes with it.
    const require = createRequire(import.meta.url);
    const { ZxcvbnFactory } = require('@zxcvbn-ts/core') as typeof import('@zxcvbn-ts/core');
    const common = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
    estimator = new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
    setImmediate(releaseEstimator).unref();
  }
  return estimator.check(secret).score < 4;
}

/** Drops the estimator and the dictionaries' modules, so that the garbage collector can take them. */
function releaseEstimator(): void {
  estimator = undefined;
  const cache = createRequire(import.meta.url).cache;
  for (const loaded of Object.keys(cache)) if (loaded.includes('/@zxcvbn-ts/')) delete cache[loaded];
}
