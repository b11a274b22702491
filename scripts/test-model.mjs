// `npm run test:model -- --runs 20000 [--seed S]`: the privilege model's search by hand, or CI's
// larger one. Compiles what the tests' set-up runs from dist/ (incremental: quick when nothing
// changed), then runs test/model/privilege-model.e2e-spec.ts alone, passing the options on as
// MODEL_RUNS and MODEL_SEED. Without --seed the seed is new each time; every run prints it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const usage = 'usage: npm run test:model -- [--runs N] [--seed S]';
const options = { runs: '200', seed: String(Math.floor(Math.random() * 2 ** 31)) };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  const name = args[i].replace(/^--/, '');
  const value = args[i + 1];
  if (!(name in options) || !/^\d+$/.test(value ?? '')) {
    process.stderr.write(`${usage}\n`);
    process.exit(2);
  }
  options[name] = value;
}

const require = createRequire(import.meta.url);
const run = (argv, env = {}) =>
  spawnSync(process.execPath, argv, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

const built = run([
  require.resolve('typescript/bin/tsc'),
  '-b',
  'packages/nest-guard/tsconfig.build.json',
  'tsconfig.build.json',
]);
if (built !== 0) process.exit(built);
process.exit(
  run(
    [
      '--experimental-vm-modules',
      'node_modules/jest/bin/jest.js',
      '--selectProjects=e2e',
      '--maxWorkers=1',
      'test/model/privilege-model.e2e-spec.ts',
    ],
    { MODEL_RUNS: options.runs, MODEL_SEED: options.seed },
  ),
);
