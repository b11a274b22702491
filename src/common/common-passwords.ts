import { createRequire } from 'node:module';
import { normalizePassword } from './normalize.js';

/**
 * Mozilla's list of the 50,000 most common passwords (fxa-common-password-list), held as one string
 * of the sorted passwords, each followed by a line feed, with the offset where each one starts, and
 * searched by bisection. The package's own check keeps the decoded list as 50,000 strings in an
 * array scanned one by one on every check (2.1 MB of heap for the process's life, about 40 µs a
 * check); here its encoded list is decoded once, with the package's own decoder, and the package's
 * modules are let go (0.5 MB of string and 0.2 MB of offsets are kept).
 */
class SortedPasswordList {
  private readonly text: string;
  /** Where each password starts in `text`; one more entry, the text's length, closes the last. */
  private readonly starts: Uint32Array;

  constructor(passwords: string[]) {
    const sorted = [...passwords].sort();
    this.text = `${sorted.join('\n')}\n`;
    this.starts = new Uint32Array(sorted.length + 1);
    for (let i = 0; i < sorted.length; i++) this.starts[i + 1] = this.starts[i] + sorted[i].length + 1;
  }

  has(candidate: string): boolean {
    let low = 0;
    let high = this.starts.length - 2;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      // The entry without its line feed: a candidate holding one never equals an entry.
      const entry = this.text.slice(this.starts[middle], this.starts[middle + 1] - 1);
      if (entry === candidate) return true;
      if (entry < candidate) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }
}

interface PasswordDecoder {
  decode(lines: string[]): string[];
}

function loadCommonPasswords(): SortedPasswordList {
  // The package's encoded list and its decoder, resolved from the package as its own check does.
  const fromPackage = createRequire(createRequire(import.meta.url).resolve('fxa-common-password-list'));
  const encoded = fromPackage('./encoded-passwords') as string;
  const { Decoder } = (fromPackage('incremental-encoder') as { default: { Decoder: new () => PasswordDecoder } })
    .default;
  const list = new SortedPasswordList(new Decoder().decode(encoded.split('\n')));
  // Let the package's modules go: what they hold (the encoded list, its source) is not needed again.
  for (const loaded of Object.keys(fromPackage.cache))
    if (/[/\\](fxa-common-password-list|incremental-encoder)[/\\]/.test(loaded)) delete fromPackage.cache[loaded];
  return list;
}

const commonPasswords = loadCommonPasswords();

/** True for a password on the bundled list of common passwords (in NFKC, compared case-insensitively too). */
export function isCommonPassword(password: string): boolean {
  const normalized = normalizePassword(password);
  return commonPasswords.has(normalized) || commonPasswords.has(normalized.toLowerCase());
}
