/** Jest runs in ESM mode (NestJS 12 is ESM-only): `node --experimental-vm-modules`. */
const base = {
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

export default {
  ...base,
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFiles: ['<rootDir>/test/support/worker-env.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
