/**
 * The layering rules of the house (docs/architecture.md), checked in CI: `npm run depcheck`.
 * Only imports that survive compilation count (type-only imports are erased).
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
      comment: 'The composition root, HTTP, MCP and the CLI use a feature only through its index.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/modules/' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
