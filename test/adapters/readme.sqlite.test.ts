/**
 * The README runs as written. Every ```console block is a session: each `$ command` runs in bash,
 * in order, against a fresh instance started the way the README starts it (`appmeta serve` on the
 * SQLite default, in an empty folder), and what it prints must be what the README shows — ids,
 * keys, times and hashes aside, which differ on every run (the same id must stay the same id).
 * ```sh blocks are the set-up steps; the test performs each known one itself (start the service,
 * start the emulators and restart the service against them) and refuses a block it does not know,
 * so that no command enters the README unrun. Links must stay inside the project.
 *
 * The ports differ from the README's (3000, 4010) so that runs never collide: the commands are
 * run with this run's ports, and the outputs compared with the README's.
 *
 * After a change of behaviour, APPMETA_README_UPDATE=1 writes the outputs of this run into the
 * README (with this run's ids and times); read the diff before committing it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { freePort } from '../support/ports.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = path.join(ROOT, 'README.md');
const UPDATE = process.env.APPMETA_README_UPDATE === '1';
const README_PORT = 3000;
const README_EMULATOR_PORT = 4010;
const README_RECEIVER_PORT = 4020;

interface Step {
  command: string;
  /** Index of the first output line in the README's lines, and how many there are. */
  outputAt: number;
  outputLength: number;
  expected: string;
}

type Block =
  | { kind: 'console'; line: number; steps: Step[] }
  | { kind: 'sh'; line: number; text: string }
  | { kind: 'text'; line: number; text: string; at: number; length: number };

/** The fenced blocks of the README, in order. */
function parseBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== '```') end++;
    const body = lines.slice(start, end);
    const lang = open[1]!;
    if (lang === 'console') {
      const steps: Step[] = [];
      for (let j = 0; j < body.length;) {
        if (!body[j]!.startsWith('$ '))
          throw new Error(`README.md:${start + j + 1}: expected a "$ " command`);
        let command = body[j]!.slice(2);
        j++;
        while (command.endsWith('\\') && j < body.length) command = `${command.slice(0, -1)}\n${body[j++]}`;
        const outputAt = start + j;
        while (j < body.length && !body[j]!.startsWith('$ ')) j++;
        let output = lines.slice(outputAt, start + j);
        while (output.length > 0 && output.at(-1) === '') output = output.slice(0, -1);
        steps.push({ command, outputAt, outputLength: output.length, expected: output.join('\n') });
      }
      blocks.push({ kind: 'console', line: i + 1, steps });
    } else if (lang === 'sh') {
      blocks.push({ kind: 'sh', line: i + 1, text: body.join('\n') });
    } else if (lang === '') {
      blocks.push({ kind: 'text', line: i + 1, text: body.join('\n'), at: start, length: body.length });
    }
    i = end;
  }
  return blocks;
}

const ID = /\b(org|mem|key|inv|proj|lst|hist|appr|aud|op|med|mhist|sch)_[0-9a-z]{26}\b/g;

/** Replaces what differs between runs by placeholders; ids are numbered by first appearance. */
function createNormalizer() {
  const ids = new Map<string, string>();
  return (text: string) =>
    text
      .replace(ID, (id, kind: string) => {
        if (!ids.has(id))
          ids.set(id, `<${kind}#${[...ids.keys()].filter((k) => k.startsWith(kind)).length + 1}>`);
        return ids.get(id)!;
      })
      .replace(/amk_[A-Za-z0-9_-]+…?/g, 'amk_<secret>')
      .replace(/asl_[A-Za-z0-9_-]+/g, 'asl_<secret>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/\b\d{4}-\d\d-\d\d\b/g, '<date>')
      .replace(/\b[0-9a-f]{64}\b/g, '<hash>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>');
}

interface Process {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
}

function start(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  ready: RegExp,
  command = BIN,
): Promise<Process> {
  const child = spawn(command, args, { cwd, env: { ...baseEnv(), ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const check = () => {
      if (ready.test(stdout + stderr)) resolve({ child, stdout: () => stdout, stderr: () => stderr });
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`)));
  });
}

async function stop(process: Process | undefined): Promise<void> {
  if (process === undefined || process.child.exitCode !== null) return;
  const exited = new Promise((resolve) => process.child.once('exit', resolve));
  process.child.kill('SIGTERM');
  await exited;
}

/** What a newcomer's shell has: PATH, HOME; nothing of the test's own environment. */
const baseEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? os.homedir(),
  LANG: 'C.UTF-8',
});

let folder: string;
let port: number;
let emulatorPort: number;
let service: Process | undefined;
let emulators: Process | undefined;
let receiver: Process | undefined;
let receiverPort: number;
const env: Record<string, string> = {};

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-readme-'));
  // The README's commands run from the project folder: ./bin/appmeta, ./data/ and ./out there.
  fs.symlinkSync(path.join(ROOT, 'bin'), path.join(folder, 'bin'));
  fs.symlinkSync(path.join(ROOT, 'examples'), path.join(folder, 'examples'));
  port = await freePort();
  emulatorPort = await freePort();
  receiverPort = await freePort();
}, 60_000);

afterAll(async () => {
  await stop(service);
  await stop(emulators);
  await stop(receiver);
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

/** The README's ports in a command become this run's; in an output, this run's become the README's. */
const toRun = (text: string) =>
  text
    .replaceAll(`localhost:${README_PORT}`, `localhost:${port}`)
    .replaceAll(`127.0.0.1:${README_EMULATOR_PORT}`, `127.0.0.1:${emulatorPort}`)
    .replaceAll(`--port ${README_EMULATOR_PORT}`, `--port ${emulatorPort}`)
    .replaceAll(`127.0.0.1:${README_RECEIVER_PORT}`, `127.0.0.1:${receiverPort}`);
const fromRun = (text: string) =>
  text
    .replaceAll(`localhost:${port}`, `localhost:${README_PORT}`)
    .replaceAll(`127.0.0.1:${emulatorPort}`, `127.0.0.1:${README_EMULATOR_PORT}`)
    .replaceAll(`127.0.0.1:${receiverPort}`, `127.0.0.1:${README_RECEIVER_PORT}`);

const STATE = () => path.join(folder, '.readme-shell-state');

/** Runs one command in bash with the variables earlier commands exported; answers what it printed. */
function runCommand(command: string): Promise<{ output: string; code: number | null }> {
  const script = `source ${JSON.stringify(STATE())} 2>/dev/null\n${toRun(command)}\nstatus=$?\nexport -p > ${JSON.stringify(STATE())}\nexit $status`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: folder, env: { ...baseEnv(), ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ output: fromRun(output).replace(/\n+$/, ''), code }));
  });
}

/** The set-up blocks the README may hold, each done here the way a reader would. */
const SETUPS: { matches: RegExp; run: () => Promise<void> }[] = [
  {
    // npm install && npm start: the first start prints the admin key, which the reader exports.
    matches: /^npm install && npm start\b/m,
    run: async () => {
      service = await start(['serve'], { PORT: String(port) }, folder, /appmeta is listening/);
      const key = /export APPMETA_KEY=(amk_\S+)/.exec(service.stdout())?.[1];
      if (key === undefined) throw new Error(`the first start printed no key: ${service.stdout()}`);
      env.APPMETA_KEY = key;
      // The address the first start printed: every example takes it from this one variable.
      const url = /export APPMETA_URL=(\S+)/.exec(service.stdout())?.[1];
      if (url === undefined) throw new Error(`the first start printed no address: ${service.stdout()}`);
      env.APPMETA_URL = url;
    },
  },
  // The suite itself, and an MCP client's set-up: nothing to do here.
  { matches: /^npm test\b/m, run: async () => undefined },
  { matches: /^claude mcp add\b/m, run: async () => undefined },
  // Several instances need a PostgreSQL and a Redis of their own: shown, not run here.
  { matches: /^export DATABASE_URL=postgres:\/\/appmeta@db\.internal/m, run: async () => undefined },
  {
    // The emulators in one terminal; the service restarted against them in the other.
    matches: /^\.\/bin\/appmeta emulate --port 4010/m,
    run: async () => {
      emulators = await start(['emulate', '--port', String(emulatorPort)], {}, folder, /listening on/);
      await stop(service);
      const url = `http://127.0.0.1:${emulatorPort}`;
      service = await start(
        ['serve'],
        {
          PORT: String(port),
          APPSTORE_API_URL: url,
          PLAY_API_URL: url,
          GOOGLE_TOKEN_URL: `${url}/token`,
          DEEPL_API_URL: url,
          WEBHOOK_ALLOW_PRIVATE: 'true',
          METRICS_TOKEN: 'readme-metrics-token-0001',
        },
        folder,
        /appmeta is listening/,
      );
    },
  },
  {
    // The example webhook receiver, in its own terminal.
    matches: /^node examples\/webhook-receiver\.mjs 4020/m,
    run: async () => {
      receiver = await start(
        ['examples/webhook-receiver.mjs', String(receiverPort)],
        {},
        folder,
        /listening on/,
        process.execPath,
      );
    },
  },
];

describe('the README', () => {
  const lines = fs.readFileSync(README, 'utf8').split('\n');
  const blocks = parseBlocks(lines);

  it('links only to files of the project and to the local instance', () => {
    const text = lines.join('\n');
    const links = [...text.matchAll(/\]\(([^)\s]+)\)|<(https?:\/\/[^>\s]+)>/g)].map((m) => m[1] ?? m[2]!);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      if (/^https?:\/\//.test(link)) {
        expect(link, link).toMatch(/^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?\//);
      } else {
        expect(fs.existsSync(path.join(ROOT, link.split('#')[0]!)), link).toBe(true);
      }
    }
  });

  it('runs every command as written, from a fresh clone, and prints what it shows', async () => {
    const normalizeExpected = createNormalizer();
    const normalizeActual = createNormalizer();
    const mismatches: string[] = [];
    const updates: { at: number; length: number; text: string }[] = [];
    let firstStartOutput: Extract<Block, { kind: 'text' }> | null = null;
    let steps = 0;

    for (const block of blocks) {
      if (block.kind === 'sh') {
        const setup = SETUPS.find((s) => s.matches.test(block.text));
        if (setup === undefined) {
          throw new Error(
            `README.md:${block.line}: a sh block the test does not know; make it a console session`,
          );
        }
        await setup.run();
        continue;
      }
      if (block.kind === 'text') {
        // The block right after `npm start` shows what the first start prints.
        if (firstStartOutput === null && service !== undefined && block.text.includes('APPMETA_KEY')) {
          firstStartOutput = block;
          const printed = fromRun(service.stdout()).trim();
          if (normalizeExpected(block.text) !== normalizeActual(printed)) {
            mismatches.push(
              `README.md:${block.line} (first start)\n--- README\n${block.text}\n--- printed\n${printed}`,
            );
          }
          if (UPDATE) updates.push({ at: block.at, length: block.length, text: printed });
        }
        continue;
      }
      for (const step of block.steps) {
        steps++;
        const { output, code } = await runCommand(step.command);
        const shown = normalizeExpected(step.expected);
        const printed = normalizeActual(output);
        if (shown !== printed) {
          mismatches.push(
            `README.md:${step.outputAt} $ ${step.command} (exit ${code})\n--- README\n${step.expected}\n--- printed\n${output}`,
          );
        }
        // An update writes every output of one run, so ids shown twice stay the same id.
        if (shown !== printed || (UPDATE && step.expected !== output)) {
          updates.push({ at: step.outputAt, length: step.outputLength, text: output });
        }
      }
    }

    if (UPDATE && updates.length > 0) {
      const next = [...lines];
      for (const update of updates.sort((a, b) => b.at - a.at)) {
        next.splice(update.at, update.length, ...(update.text === '' ? [] : update.text.split('\n')));
      }
      fs.writeFileSync(README, next.join('\n'));
    }
    expect(firstStartOutput, 'the README shows what the first start prints').not.toBeNull();
    expect(steps).toBeGreaterThan(20);
    expect(mismatches).toEqual([]);
  }, 600_000);
});
