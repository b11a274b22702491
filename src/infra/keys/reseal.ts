import type { ResealReport } from './data-key-ring.js';

/** How one kind of sealed secret is opened, sealed again and swapped in its row. */
export interface Resealing<Row, Opened, Sealed> {
  /** Opens the row's value (throws when no key of the ring does), saying whether the first key sealed it. */
  open(row: Row): { sealedUnderFirst: boolean } & Opened;
  /** The value sealed anew under the first key. */
  seal(row: Row, opened: Opened): Sealed;
  /** Swaps the new value in only if the row still holds the one that was read; false when it changed meanwhile. */
  replace(row: Row, next: Sealed): Promise<boolean>;
}

/**
 * `rotate-data-key`'s one loop: every value sealed under an older key of the ring is sealed again
 * under the first, so that the older key may be dropped. A value changed meanwhile (a new
 * enrolment, a delivered message, an edit) was sealed under the first key already: it counts as
 * current. Counts only, never a value.
 */
export async function resealAll<Row, Opened, Sealed>(
  rows: Row[],
  resealing: Resealing<Row, Opened, Sealed>,
): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, current: 0, unreadable: 0 };
  for (const row of rows) {
    let opened: { sealedUnderFirst: boolean } & Opened;
    try {
      opened = resealing.open(row);
    } catch {
      report.unreadable += 1;
      continue;
    }
    if (opened.sealedUnderFirst) {
      report.current += 1;
      continue;
    }
    if (await resealing.replace(row, resealing.seal(row, opened))) report.resealed += 1;
    else report.current += 1;
  }
  return report;
}
