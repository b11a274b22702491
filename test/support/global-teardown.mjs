import { dropRun } from './databases.mjs';

/** Drops the templates, and any database a worker that died left behind. */
export default async function globalTeardown() {
  if (globalThis.testRun) await dropRun(globalThis.testRun);
}
