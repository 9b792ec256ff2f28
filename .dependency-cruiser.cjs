/**
 * The layering rules of the house (docs/architecture.md), checked in CI: `npm run depcheck`, over
 * the service (src) and the dashboard (web/src). Type-only imports count like any other
 * (tsPreCompilationDeps), except where a rule says otherwise.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import each other, directly or in a ring, cannot be understood one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'features-entered-through-their-index',
      comment: "A feature folder uses another only through that folder's public index.ts.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'adapters-enter-features-through-their-index',
      comment:
        'HTTP, MCP and the CLI use a feature only through its index.ts; the composition root also ' +
        'takes the repositories, to hand features narrowed ports of them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/[^/]+/index\\.ts$', '^src/modules/[^/]+/[^/]+\\.repository\\.ts$'],
      },
    },
    {
      name: 'repositories-reached-by-the-composition-root-only',
      comment: 'Outside its feature, a repository object is reached by src/services.ts only.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/services\\.ts$'] },
      to: { path: '^src/modules/[^/]+/[^/]+\\.repository\\.ts$' },
    },
    {
      name: 'no-repository-in-a-public-index',
      comment:
        "A feature's index.ts exports no repository object (its types, for ports, are fine): other " +
        'features get a narrowed port from the composition root or a named function of the feature.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/index\\.ts$' },
      to: { path: '\\.repository\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sql-only-in-repositories',
      comment:
        'Kysely (and so SQL) is imported by repositories, the database layer and the queue adapters ' +
        'only; eslint refuses query builders called elsewhere on an Executor.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['\\.repository\\.ts$', '^src/db/', '^src/jobs/'] },
      to: { path: 'node_modules/kysely/' },
    },
    {
      name: 'ports-and-vocabulary-know-no-features',
      comment: 'Connectors, emulators and the shared vocabulary never import the feature modules.',
      severity: 'error',
      from: { path: '^src/(connectors|emulators|shared)/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'emulators-stand-alone',
      comment:
        "An emulator must not inherit a connector's mistake: it uses neither the connectors nor the " +
        "service's store tables.",
      severity: 'error',
      from: { path: '^src/emulators/' },
      to: { path: '^src/(connectors/|modules/|shared/stores\\.ts$|services\\.ts$|app\\.ts$)' },
    },
    {
      name: 'domain-knows-no-http',
      comment: 'Services, repositories and domain types never import the HTTP layer; routes and schemas may.',
      severity: 'error',
      from: { path: '^src/modules/', pathNot: '\\.(routes|schemas)\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'fastify-only-at-the-edge',
      comment: 'Fastify is imported only by src/http, the composition root (app.ts) and the emulators.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(http/|app\\.ts$|emulators/)' },
      to: { path: 'node_modules/(fastify|@fastify)/' },
    },
    {
      name: 'dashboard-shares-only-the-vocabulary',
      comment:
        'The dashboard runs in the browser: of the service it imports src/shared only (listing ' +
        'rules, event types), and talks to the rest through the API.',
      severity: 'error',
      from: { path: '^web/src/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'service-knows-no-dashboard',
      comment: 'The service serves the built dashboard as files; it imports none of its code.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^web/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
