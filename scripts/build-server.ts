/**
 * `npm run build`'s server half: bundles src/ into dist/ with esbuild, minified, as bin/appmeta
 * runs it (dist/cli/main.js and dist/shared/heap-sizing.js, chunks shared between them in
 * dist/chunks/). One bundle instead of some 1,400 modules kept every instance's heap about 10 MB
 * smaller: V8 holds each module's source text and per-module records for good (BENCHMARKS.md,
 * ninth part). The tests run the sources through the same esbuild transform (tsx, vitest), and
 * every test that spawns bin/appmeta runs this bundle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'dist');

/**
 * Packages left to node_modules: native addons, which load their binary from beside their own
 * files. Packages loaded through lazyModule are required by a name known only at run time, so
 * esbuild leaves them out by itself. Code that looks for files beside its own module finds them
 * through PACKAGE_ROOT or require.resolve instead (dashboard, specs, Swagger UI).
 */
const EXTERNAL = ['better-sqlite3', 'sharp', 'pg-native'];

// esbuild's ESM output turns a bundled CommonJS package's require('node:…') into a call of
// `require`, which an ES module has to make for itself.
const REQUIRE =
  "import { createRequire as __createRequire } from 'node:module';\n" +
  'const require = __createRequire(import.meta.url);';

// Stale files of an earlier build (or of the per-file tsc build before it) must not linger.
fs.rmSync(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: { 'cli/main': 'src/cli/main.ts', 'shared/heap-sizing': 'src/shared/heap-sizing.ts' },
  outdir: OUT,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  // Chunks shared by both entry points hold one copy of heap-sizing's state for both.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  banner: { js: REQUIRE },
  // Whitespace and syntax only: names stay as written, so logs name an error's class and stack
  // traces its functions. Mangled names would save 2 MB more but need esbuild's keepNames for
  // that, which renames every closure as it is made, per request too.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
