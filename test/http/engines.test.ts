/**
 * `engines` in package.json stays true: every installed package admits the oldest Node.js the
 * project supports (npm otherwise prints EBADENGINE warnings on install, and a package may use
 * what that Node.js lacks).
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const project = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};

/** Every package.json under node_modules, nested ones included. */
function installedPackages(
  dir = path.join(ROOT, 'node_modules'),
): { name: string; version: string; engines?: { node?: string } }[] {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const folder = path.join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      found.push(...installedPackages(folder));
      continue;
    }
    const manifest = path.join(folder, 'package.json');
    if (fs.existsSync(manifest)) found.push(JSON.parse(fs.readFileSync(manifest, 'utf8')));
    const nested = path.join(folder, 'node_modules');
    if (fs.existsSync(nested)) found.push(...installedPackages(nested));
  }
  return found;
}

describe('engines', () => {
  it('every installed package admits the oldest Node.js that package.json promises', () => {
    const oldest = semver.minVersion(project.engines.node)!;
    expect(semver.satisfies(process.version, project.engines.node)).toBe(true);
    const packages = installedPackages();
    expect(packages.length).toBeGreaterThan(100);
    const refusing = packages
      .filter((p) => typeof p.engines?.node === 'string' && !semver.satisfies(oldest, p.engines.node))
      .map((p) => `${p.name}@${p.version} wants node ${p.engines!.node}`);
    expect(refusing).toEqual([]);
  });
});
