/** Jest runs in ESM mode (NestJS 12 is ESM-only): `node --experimental-vm-modules`. */
const base = {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
    // CommonJS packages that require() the ESM-only Nest 12. Node loads them; Jest cannot, even on
    // Node 24.21 where it can require() an ES module: it refuses @nestjs/core there ("in a cycle",
    // core being part of the graph under evaluation). Needed on every Node the project supports.
    '/node_modules/@nestjs/throttler/.+\\.js$': '<rootDir>/test/support/cjs-to-esm-transform.cjs',
  },
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/throttler/)'],
};

/**
 * On a real database (the medium tests, and the e2e tests through HTTP): each test file gets copies of a template that the global setup
 * migrates and seeds once (test/support/database-environment.mjs). Needs `npm run build`.
 */
const databaseBacked = {
  ...base,
  testEnvironment: '<rootDir>/test/support/database-environment.mjs',
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFiles: ['<rootDir>/test/support/worker-env.ts'],
};

export default {
  maxWorkers: 2,
  // A run-wide option: Jest has no per-project timeout. Unit tests finish far within it.
  testTimeout: 60_000,
  projects: [
    {
      ...base,
      // Pure tests: no database, no Redis, no global setup, nothing built. `*.spec.ts` beside the
      // code, and under test/ for checks of the repository's own files (the container set-up).
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
    },
    {
      // Repositories and policies on a real database, without HTTP or an app: each file builds its
      // repositories on a data source of its own database (test/medium/medium-database.ts).
      ...databaseBacked,
      displayName: 'medium',
      testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'],
    },
    {
      ...databaseBacked,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/timing/'],
    },
    {
      // Latency comparisons: alone (`npm run test:timing`, one worker), since other tests beside
      // them would only measure their noise.
      ...databaseBacked,
      displayName: 'timing',
      testMatch: ['<rootDir>/test/timing/**/*.e2e-spec.ts'],
    },
  ],
};
