import { dropRun } from './databases.mjs';

/** Drops the templates, and any database a worker that died left behind; stops the run's own Redis. */
export default async function globalTeardown() {
  if (globalThis.testRun) await dropRun(globalThis.testRun);
  await globalThis.testRedis?.stop();
}
