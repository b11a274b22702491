import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';

let estimator: ZxcvbnFactory | undefined;

/**
 * True when zxcvbn (a maintained strength estimator, with its common-password and keyboard
 * dictionaries) rates the secret at its highest score: repeats (`'a' * 64`), keyboard walks and
 * words from the dictionaries are guessable whatever their length. Built on first use only,
 * since its dictionaries take some memory and only production start-up asks.
 */
export function isGuessableSecret(secret: string): boolean {
  estimator ??= new ZxcvbnFactory({ dictionary: { ...zxcvbnCommon.dictionary }, graphs: zxcvbnCommon.adjacencyGraphs });
  return estimator.check(secret).score < 4;
}
