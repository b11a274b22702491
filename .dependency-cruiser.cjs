/**
 * The import rules of the service (docs/architecture.md explains them). `npm run lint:deps` checks
 * them on src/ and packages/nest-guard/src; a new cycle or an import against the layers fails it.
 *
 * Layers, each importing only those below it (a layer may skip the ones in between):
 *   composition (main.ts, app.module.ts, http-app.ts, startup-banner.ts, startup-self-check.ts, cli/)
 *   → features (one folder per HTTP area; never each other)
 *   → core (src/core: repositories, the authorization core, the domain services features share)
 *   → infrastructure (database, redis, mail, sms, outbox, metrics, logging, limits)
 *   → config → common
 */

const FEATURES = [
  'account',
  'audit',
  'auth',
  'console-page',
  'contents',
  'docs',
  'health',
  'introspection',
  'metrics-endpoint',
  'oauth',
  'otp',
  'passkey-page',
  'rbac',
  'reset-page',
  'settings',
  'users',
];
const INFRASTRUCTURE = ['database', 'redis', 'mail', 'sms', 'outbox', 'metrics', 'logging', 'limits'];

const COMPOSITION =
  '^src/(cli/|main\\.ts$|app\\.module\\.ts$|http-app\\.ts$|startup-banner\\.ts$|startup-self-check\\.ts$)';
const FEATURE = `^src/(${FEATURES.join('|')})/`;
const CORE = '^src/core/';
const INFRA = `^src/(${INFRASTRUCTURE.join('|')})/`;
const CONFIG = '^src/config/';
const COMMON = '^src/common/';
const ANY_LAYER = [COMPOSITION, FEATURE, CORE, INFRA, CONFIG, COMMON];

/** Files that may use TypeORM's values (DataSource, repositories, query builders, operators). */
const DATA_ACCESS = [
  '\\.repository\\.ts$',
  `^src/(${INFRASTRUCTURE.join('|')})/`,
  // Runs on a bare DataSource beside the application too (the CLI, the tests' set-up); its
  // statements are in seed.repository.ts.
  '^src/core/seeds/seed\\.service\\.ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle between files (type-only imports included), so no cycle between folders either.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'layer-unknown',
      severity: 'error',
      comment:
        'Every file of src belongs to a layer: a new top-level folder is added to this file and to docs/architecture.md.',
      from: { path: '^src/', pathNot: ANY_LAYER },
      to: {},
    },
    {
      name: 'features-not-composition',
      severity: 'error',
      comment: 'Features do not import the application that composes them.',
      from: { path: FEATURE },
      to: { path: COMPOSITION },
    },
    {
      name: 'features-not-each-other',
      severity: 'error',
      comment: 'A feature never imports another feature: what two features share moves down into src/core.',
      from: { path: FEATURE },
      to: { path: FEATURE, pathNot: '^src/$1/' },
    },
    {
      name: 'core-not-upward',
      severity: 'error',
      comment: 'The core imports no feature and not the composition.',
      from: { path: CORE },
      to: { path: [FEATURE, COMPOSITION] },
    },
    {
      name: 'infrastructure-not-upward',
      severity: 'error',
      comment: 'Infrastructure knows nothing of the domain: it reports through its own interfaces (OutboxObserver).',
      from: { path: INFRA },
      to: { path: [CORE, FEATURE, COMPOSITION] },
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
        'transactions through Transactions (src/database/transactions.ts) and pass the manager to repositories.',
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
