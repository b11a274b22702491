/**
 * The import rules of the service (docs/architecture.md explains them). `npm run lint:deps` checks
 * them on src/ and packages/nest-guard/src, with scripts/check-folder-cycles.mjs for cycles
 * between folders at every depth (dependency-cruiser sees cycles between files only).
 *
 * The house:
 *   composition (main.ts, app.module.ts, http-app.ts, startup-*.ts) and cli/, on top;
 *   middleware/: the global request pipeline, imported by app.module.ts alone;
 *   capabilities: one folder per thing the product does, importing one another only through
 *     their index.ts, with no cycle between them;
 *   infra/ (database, redis, messaging, telemetry), then config/, then common/, at the bottom:
 *     they never import a capability.
 */

const CAPABILITIES = [
  'account',
  'audit',
  'clients',
  'contents',
  'email-code',
  'events',
  'identity',
  'introspection',
  'lockout',
  'mobile-otp',
  'oidc',
  'one-time-codes',
  'organizations',
  'ops',
  'password-reset',
  'provider',
  'rbac',
  'second-factor',
  'sessions',
  'settings',
  'sign-in',
  'upstream',
  'users',
];

const COMPOSITION = '^src/(cli/|[^/]+\\.ts$)';
const MIDDLEWARE = '^src/middleware/';
const CAPABILITY = `^src/(${CAPABILITIES.join('|')})/`;
const INFRA = '^src/infra/';
const CONFIG = '^src/config/';
const COMMON = '^src/common/';
const ANY_ROOM = [COMPOSITION, MIDDLEWARE, CAPABILITY, INFRA, CONFIG, COMMON];

/** Files that may use TypeORM's values (DataSource, repositories, query builders, operators). */
const DATA_ACCESS = [
  '\\.repository\\.ts$',
  INFRA,
  // Runs on a bare DataSource beside the application too (the CLI, the tests' set-up); its
  // statements are in seed.repository.ts.
  '^src/rbac/seeds/seed\\.service\\.ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle between files (type-only imports included).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'room-unknown',
      severity: 'error',
      comment:
        'Every file of src belongs to a room: a new top-level folder is added to this file and to docs/architecture.md.',
      from: { path: '^src/', pathNot: ANY_ROOM },
      to: {},
    },
    {
      name: 'capability-through-its-index',
      severity: 'error',
      comment:
        'Outside its own folder, a capability is imported through its index.ts: what it exports there is what others may use.',
      from: { path: '^src/([^/]+)/' },
      to: { path: CAPABILITY, pathNot: ['^src/$1/', `^src/(${CAPABILITIES.join('|')})/index\\.ts$`] },
    },
    {
      name: 'capability-through-its-index-from-the-top',
      severity: 'error',
      comment: 'The composition files import capabilities through their index.ts too.',
      from: { path: '^src/[^/]+\\.ts$' },
      to: { path: CAPABILITY, pathNot: `^src/(${CAPABILITIES.join('|')})/index\\.ts$` },
    },
    {
      name: 'middleware-only-from-app-module',
      severity: 'error',
      comment: 'The global pipeline is registered in app.module.ts, in its order, and imported nowhere else.',
      from: { path: '^src/', pathNot: [MIDDLEWARE, '^src/app\\.module\\.ts$'] },
      to: { path: MIDDLEWARE },
    },
    {
      name: 'nothing-imports-the-top',
      severity: 'error',
      comment: 'Capabilities, middleware and infrastructure do not import the application that composes them.',
      from: { path: [MIDDLEWARE, CAPABILITY, INFRA, CONFIG, COMMON] },
      to: { path: COMPOSITION },
    },
    {
      name: 'infrastructure-not-upward',
      severity: 'error',
      comment: 'Infrastructure knows nothing of the domain: it reports through its own interfaces (OutboxObserver).',
      from: { path: INFRA },
      to: { path: [CAPABILITY, MIDDLEWARE] },
    },
    {
      name: 'config-only-common',
      severity: 'error',
      comment: 'config/ reads and validates the environment; it may use common/ helpers and nothing else of src.',
      from: { path: CONFIG },
      to: { path: '^src/', pathNot: [CONFIG, COMMON] },
    },
    {
      name: 'common-is-the-bottom',
      severity: 'error',
      comment: 'common/ imports nothing else of src (not even config/).',
      from: { path: COMMON },
      to: { path: '^src/', pathNot: COMMON },
    },
    {
      name: 'guard-package-self-contained',
      severity: 'error',
      comment: 'The published guard package imports nothing of the service.',
      from: { path: '^packages/nest-guard/' },
      to: { path: '^(src|test|bench)/' },
    },
    {
      name: 'typeorm-values-only-in-data-access',
      severity: 'error',
      comment:
        'Outside repositories and infrastructure, TypeORM is imported for types only (EntityManager): services open ' +
        'transactions through Transactions (src/infra/database/transactions.ts) and pass the manager to repositories.',
      from: { path: '^src/', pathNot: DATA_ACCESS },
      to: { path: '(^|/)node_modules/typeorm/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Tests may reach into any layer; the rules are about the service's own code.
    exclude: { path: ['\\.spec\\.ts$', '(^|/)dist/', '^src/console/'] },
    // Type-only imports count: a cycle through types is still a cycle of the design.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
