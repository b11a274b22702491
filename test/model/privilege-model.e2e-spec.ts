import { useTestApp } from '../support/fixture.js';
import { INTROSPECTION_CLIENT, runModel } from './runner.js';

/**
 * The privilege rules, machine-checked: random admin histories (single writes, and pairs sent at
 * once), organization writes among them (members, invitations, roles inside an organization,
 * the template, organization tokens), against the real service on a real database, each step checked against the model and the
 * invariants (test/model/invariants.ts). `MODEL_RUNS` histories (default 200) from `MODEL_SEED`
 * (default: a fixed seed, so `npm test` is repeatable); `npm run test:model -- --runs N [--seed S]`
 * sets both.
 */
const runs = Number(process.env.MODEL_RUNS ?? 200);
const seed = Number(process.env.MODEL_SEED ?? 20261124);

describe('privilege model', () => {
  const fixture = useTestApp({
    env: { SERVICE_CLIENTS: `${INTROSPECTION_CLIENT.id}:${INTROSPECTION_CLIENT.secret}` },
    // Invitations are accepted with the token their mail carries.
    smtp: true,
  });

  it(
    `holds every invariant over ${runs} random admin histories`,
    async () => {
      const result = await runModel(fixture.app, fixture.db, {
        runs,
        seed,
        print: (line) => process.stdout.write(`${line}\n`),
        mails: fixture.smtp,
      });
      process.stdout.write(
        `privilege model: ${result.runs} histories in ${(result.millis / 1000).toFixed(1)} s (seed ${result.seed})\n`,
      );
      if (result.failed) throw new Error(result.report);
    },
    Math.max(120_000, runs * 3_000),
  );
});
