import fs from 'node:fs';
import path from 'node:path';

/**
 * appmeta's own directory (where package.json, web/dist and specs/ are), found upwards from this
 * module: it runs from src/shared/ through tsx and from a chunk of the bundle in dist/.
 */
export const PACKAGE_ROOT = findPackageRoot(import.meta.dirname);

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
