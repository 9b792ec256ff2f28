/**
 * Before the run: bundles src/ into dist/ (`npm run build`), so that the tests that spawn
 * bin/appmeta run the CLI as `npm start` ships it — and start in a second, not three.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function setup() {
  execFileSync('npm', ['run', 'build', '--silent'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
