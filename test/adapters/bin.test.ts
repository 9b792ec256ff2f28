/**
 * bin/appmeta runs the compiled dist/ only when `npm run build` made it from the current src/,
 * so an operator never runs code older than the sources. Checked on a copy of bin/appmeta in a
 * scratch tree whose dist/ and src/ entry points say which one ran.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';

const run = promisify(execFile);
let root: string;

const entry = (which: string) =>
  `export function main(argv) { process.stdout.write('${which} ' + argv.slice(2).join(' ')); }\n`;

/** Sets a file's modification time, so that "newer" does not depend on the clock's resolution. */
const stamp = (file: string, secondsAgo: number) => {
  const at = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(path.join(root, file), at, at);
};

const ran = async () => (await run(path.join(root, 'bin/appmeta'), ['serve'])).stdout;

// Each test gets its own scratch tree: the build stamps of one must not decide another.
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-bin-'));
  fs.mkdirSync(path.join(root, 'bin'));
  fs.mkdirSync(path.join(root, 'src/cli'), { recursive: true });
  fs.mkdirSync(path.join(root, 'dist/cli'), { recursive: true });
  fs.copyFileSync(BIN, path.join(root, 'bin/appmeta'));
  fs.writeFileSync(path.join(root, 'package.json'), '{"type": "module"}');
  fs.symlinkSync(path.resolve(import.meta.dirname, '../../node_modules'), path.join(root, 'node_modules'));
  fs.writeFileSync(path.join(root, 'src/cli/main.ts'), entry('src'));
  fs.writeFileSync(path.join(root, 'dist/cli/main.js'), entry('dist'));
  // bin/appmeta sizes the heap before it loads the CLI, from the same tree.
  for (const file of ['src/shared/heap-sizing.ts', 'dist/shared/heap-sizing.js']) {
    fs.mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
    fs.writeFileSync(
      path.join(root, file),
      'export function capYoungGeneration() {}\nexport function limitOldGenerationGrowth() {}\n' +
        'export const holdYoungGenerationWhile = (load) => load();\n',
    );
  }
  stamp('src/shared/heap-sizing.ts', 60);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('bin/appmeta', () => {
  it('runs the sources when nothing was built', async () => {
    expect(await ran()).toBe('src serve');
  });

  it('runs dist/ when the build is newer than every source file', async () => {
    stamp('src/cli/main.ts', 60);
    fs.writeFileSync(path.join(root, 'dist/.built'), '');
    stamp('dist/.built', 30);
    expect(await ran()).toBe('dist serve');
  });

  it('runs the sources again once any source file is newer than the build', async () => {
    stamp('src/cli/main.ts', 60);
    fs.writeFileSync(path.join(root, 'dist/.built'), '');
    stamp('dist/.built', 30);
    expect(await ran()).toBe('dist serve');
    fs.writeFileSync(path.join(root, 'src/cli/later.ts'), '');
    stamp('src/cli/later.ts', 10);
    expect(await ran()).toBe('src serve');
  });
});
