/**
 * The GitHub Actions example (examples/github-actions/store-listings.yml) runs as written: each
 * `run` step of its jobs, in bash with GitHub's `-eo pipefail`, against a listening instance
 * linked to the store emulators, with `appmeta` on the PATH as the install step would put it (that
 * step and the `uses` steps are GitHub's). The pull-request job shows how the repository's tree
 * differs and writes nothing; the main job imports and pushes, and the store has the text. Then
 * the user CLI's exit codes, which the example relies on to fail a step.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BIN } from '../support/cli.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';
import { distinctColour, image } from '../support/media.js';

const WORKFLOW = path.join(import.meta.dirname, '../../examples/github-actions/store-listings.yml');
/** GitHub's own steps: the checkout, Node, and installing the CLI (here it is on the PATH). */
const PROVIDED = new Set(['Install the appmeta CLI']);

let emu: RunningEmulators;
let h: Harness;
let url: string;
let org: TestOrganization;
let dir: string;

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env, worker: true });
  url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  org = await h.given.organization();
  for (const store of ['appstore', 'playstore'] as const)
    await org.admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-ci-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.symlinkSync(BIN, path.join(dir, 'bin', 'appmeta'));
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function bash(script: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', script], {
      cwd,
      env: { PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}`, HOME: dir, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

type Step = { name?: string; uses?: string; run?: string };

/** Runs a job's steps as the runner would; answers what each printed. */
async function runJob(job: string, repo: string, env: Record<string, string>) {
  const workflow = parse(fs.readFileSync(WORKFLOW, 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
  const printed: string[] = [];
  for (const step of workflow.jobs[job]!.steps) {
    if (step.run === undefined || PROVIDED.has(step.name ?? '')) continue;
    const result = await bash(step.run, repo, env);
    expect(result.code, `${job} / ${step.name}: ${result.stderr}${result.stdout}`).toBe(0);
    printed.push(result.stdout);
  }
  return printed.join('');
}

describe('the GitHub Actions example', () => {
  it('shows a pull request’s change without writing it, and pushes it once merged', async () => {
    const project = (
      await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })
    ).id;
    expect((await org.admin.api.post(`/api/v1/projects/${project}/sync`, {})).status).toBe(200);
    // The repository: the texts as appmeta holds them, then a pull request's change.
    const repo = fs.mkdtempSync(path.join(dir, 'repo-'));
    const runnerTemp = fs.mkdtempSync(path.join(dir, 'runner-'));
    const summary = path.join(runnerTemp, 'summary.md');
    const env = {
      APPMETA_URL: url,
      APPMETA_KEY: org.admin.apiKey,
      APPMETA_PROJECT: project,
      RUNNER_TEMP: runnerTemp,
      GITHUB_STEP_SUMMARY: summary,
    };
    expect((await bash(`appmeta export --project "${project}" --out .`, repo, env)).code).toBe(0);
    const keywords = path.join(repo, 'fastlane/metadata/en-US/keywords.txt');
    expect(fs.readFileSync(keywords, 'utf8')).toBe('rain,radar');
    fs.writeFileSync(keywords, 'rain,radar,storm');
    fs.writeFileSync(
      path.join(repo, 'fastlane/metadata/en-US/promotional_text.txt'),
      'Storm radar, minute by minute',
    );

    await runJob('diff', repo, env);
    const shown = fs.readFileSync(summary, 'utf8');
    expect(shown).toContain('-rain,radar');
    expect(shown).toContain('+rain,radar,storm');
    expect(shown).toContain('Only in fastlane/metadata/en-US: promotional_text.txt');
    expect((await org.admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.changeCount).toBe(0);

    const pushed = await runJob('push', repo, env);
    expect(pushed).toContain('appstore en-US keywords: "rain,radar" → "rain,radar,storm"');
    expect(pushed).toContain('appstore en-US promotionalText: ∅ → "Storm radar, minute by minute"');
    expect(pushed).toMatch(/Push op_\w+: succeeded/);
    expect(emu.appStore.snapshot(APP_ID)['ver-2']!.versions['en-US']).toMatchObject({
      keywords: 'rain,radar,storm',
      promotionalText: 'Storm radar, minute by minute',
    });
  });

  it('ends with the exit code a CI step branches on', async () => {
    const project = (await h.given.project(org.admin, { appStoreAppId: APP_ID })).id;
    const env = { APPMETA_URL: url, APPMETA_KEY: org.admin.apiKey };
    const run = (args: string, extra: Record<string, string> = {}) =>
      bash(`appmeta ${args}`, dir, { ...env, ...extra });
    expect((await run('projects list --json')).code).toBe(0);
    expect((await run('diff --project proj_none')).code).toBe(2); // not found: the input was wrong
    expect((await run('push --project x', { APPMETA_URL: '' })).code).toBe(1); // usage: no server
    expect((await run(`diff --project ${project}`, { APPMETA_URL: 'http://127.0.0.1:9' })).code).toBe(5);
    const bad = await run(`diff --project ${project} --json`, { APPMETA_KEY: 'amk_wrong' });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.code).toBe('UNAUTHORIZED');
    // media upload goes through the server when one is named.
    const play = (await h.given.project(org.admin, { playStorePackageName: PACKAGE })).id;
    fs.writeFileSync(
      path.join(dir, 'home.png'),
      await image({ width: 320, height: 640, colour: distinctColour() }),
    );
    const uploaded = await run(
      `media upload --project ${play} --store playstore --locale de-DE --slot phoneScreenshots home.png --json`,
    );
    expect(uploaded.code, uploaded.stderr).toBe(0);
    expect(JSON.parse(uploaded.stdout).uploaded[0].item).toMatchObject({
      position: 1,
      width: 320,
      height: 640,
    });
    const listed = await org.admin.api.get(`/api/v1/projects/${play}/media?store=playstore&locale=de-DE`);
    expect(JSON.stringify(listed.body.data)).toContain(JSON.parse(uploaded.stdout).uploaded[0].item.sha256);
    // A member's push that needs an admin's approval first: 3.
    await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    try {
      const member = await h.given.member(org, 'member');
      await member.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
        subtitle: 'Needs a yes',
      });
      const refused = await run(`push --project ${project} --wait`, { APPMETA_KEY: member.apiKey });
      expect(refused.code, refused.stderr).toBe(3);
      expect(refused.stderr).toContain('approve');
    } finally {
      await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: false } });
    }
  });
});
