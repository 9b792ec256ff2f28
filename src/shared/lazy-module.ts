import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded on its first use instead of at start-up. Packages that only some deployments
 * or some rare requests need (the S3 client, Redis, image decoding, DeepL, passkeys) would
 * otherwise sit in every instance's memory: together they were most of the service's idle RSS
 * (BENCHMARKS.md, #22). Import the package's types with `import type` beside it.
 */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
