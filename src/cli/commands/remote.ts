/**
 * The commands of a user of a running server, for CI and scripts (design.md §21): projects list,
 * pull (sync), diff, push, import and export of a fastlane tree — over the REST API with an API
 * key, never the database. Their exit codes are remote.ts's.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { IMPORT_LIMITS } from '../../modules/listings/index.js';
import { packArchive, readArchive } from '../../shared/archive.js';
import { readTree } from '../file-trees.js';
import { emit, plural, type Output } from '../command-kit.js';
import { createRemote, EXIT, RemoteError, type RemoteOptions } from '../remote.js';

type Change = { old: string | null; new: string | null };
interface Diff {
  hash: string;
  changeCount: number;
  mediaChangeCount: number;
  releaseNoteChangeCount: number;
  productChangeCount?: number;
  detailChangeCount?: number;
  stores: Record<string, Record<string, Record<string, Change>>>;
  approval: { required: boolean; approved: boolean };
}
interface Operation {
  id: string;
  status: string;
  outcome: Record<string, unknown> | null;
}

const POLL_MS = 1_000;
const short = (text: string | null) =>
  text === null ? '∅' : JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}…` : text);

/** `--url` and `--key` on a command, beside APPMETA_URL and APPMETA_KEY. */
const remoteCommand = (parent: Command, name: string) =>
  parent
    .command(name)
    .option('--url <url>', 'the server (default: APPMETA_URL)')
    .option('--key <key>', 'an API key (default: APPMETA_KEY)');

const remoteOf = (options: RemoteOptions) =>
  createRemote({ ...(options.url && { url: options.url }), ...(options.key && { key: options.key }) });

export function remoteCommands(program: Command, output: () => Output): void {
  const projects = program
    .command('projects')
    .description('projects on a running server (APPMETA_URL, APPMETA_KEY)');
  remoteCommand(projects, 'list')
    .description('the projects the key may see')
    .option('--search <text>', 'names containing it')
    .action(async (options: RemoteOptions & { search?: string }) => {
      const query = options.search === undefined ? '' : `&search=${encodeURIComponent(options.search)}`;
      const page = await remoteOf(options).call<{ projects: { id: string; name: string }[]; total: number }>(
        'GET',
        `/projects?limit=100${query}`,
      );
      emit(
        output(),
        page,
        page.projects.length === 0 ? ['No projects'] : page.projects.map((p) => `${p.id}  ${p.name}`),
      );
    });

  remoteCommand(program, 'pull')
    .description(
      'reads the stores into the project (a sync); what both sides changed is kept here and reported',
    )
    .requiredOption('--project <id>', 'project id')
    .action(async (options: RemoteOptions & { project: string }) => {
      const result = await remoteOf(options).call<{
        syncedLocales: string[];
        conflicts: unknown[];
        failures: { store: string; error: { message: string } }[];
      }>('POST', `/projects/${encodeURIComponent(options.project)}/sync`, {});
      emit(output(), result, [
        `Pulled ${plural(result.syncedLocales.length, 'locale')}; ${plural(result.conflicts.length, 'conflict')}`,
        ...result.failures.map((f) => `  ${f.store}: ${f.error.message}`),
      ]);
      if (result.failures.length > 0) process.exitCode = EXIT.partial;
    });

  remoteCommand(program, 'diff')
    .description('what a push would change, field by field, and whether it is approved')
    .requiredOption('--project <id>', 'project id')
    .action(async (options: RemoteOptions & { project: string }) => {
      const diff = await remoteOf(options).call<Diff>(
        'GET',
        `/projects/${encodeURIComponent(options.project)}/diff`,
      );
      const lines: string[] = [];
      for (const [store, locales] of Object.entries(diff.stores)) {
        for (const [locale, fields] of Object.entries(locales)) {
          for (const [field, change] of Object.entries(fields)) {
            lines.push(`${store} ${locale} ${field}: ${short(change.old)} → ${short(change.new)}`);
          }
        }
      }
      const others = [
        diff.mediaChangeCount > 0 && plural(diff.mediaChangeCount, 'media slot'),
        diff.releaseNoteChangeCount > 0 && plural(diff.releaseNoteChangeCount, 'release note'),
        (diff.productChangeCount ?? 0) > 0 && plural(diff.productChangeCount!, 'product text'),
        (diff.detailChangeCount ?? 0) > 0 && plural(diff.detailChangeCount!, 'app detail'),
      ].filter(Boolean);
      emit(output(), diff, [
        `${plural(diff.changeCount, 'text change')}${others.length > 0 ? `, ${others.join(', ')}` : ''} (hash ${diff.hash.slice(0, 12)}…)` +
          (diff.approval.required ? (diff.approval.approved ? ', approved' : ', not approved yet') : ''),
        ...lines,
      ]);
    });

  remoteCommand(program, 'push')
    .description('writes the pending changes to the stores (queued; --wait for the outcome)')
    .requiredOption('--project <id>', 'project id')
    .option('--dry-run', 'only say what it would write')
    .option('--wait', 'wait until it has run; exit 4 when a store refused part of it')
    .action(async (options: RemoteOptions & { project: string; dryRun?: boolean; wait?: boolean }) => {
      const remote = remoteOf(options);
      const project = encodeURIComponent(options.project);
      if (options.dryRun === true) {
        const preview = await remote.call<{
          changeCount: number;
          mediaChangeCount: number;
          stores: string[];
        }>('POST', `/projects/${project}/push`, { dryRun: true });
        emit(output(), preview, [
          `Would write ${plural(preview.changeCount, 'text change')} and ${plural(preview.mediaChangeCount, 'media slot')} to ${preview.stores.join(', ') || 'no store'}`,
        ]);
        return;
      }
      const queued = await remote.call<{ operation: Operation }>(
        'POST',
        `/projects/${project}/push`,
        {},
        {
          prefer: 'respond-async',
        },
      );
      let operation = queued.operation;
      while (options.wait === true && (operation.status === 'queued' || operation.status === 'running')) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        operation = (
          await remote.call<{ operation: Operation }>(
            'GET',
            `/projects/${project}/operations/${operation.id}`,
          )
        ).operation;
      }
      const failures =
        (operation.outcome?.failures as
          { store: string; locale: string | null; error: { message: string } }[] | undefined) ?? [];
      emit(output(), { operation }, [
        `Push ${operation.id}: ${operation.status}`,
        ...failures.map((f) => `  ${f.store}${f.locale === null ? '' : ` ${f.locale}`}: ${f.error.message}`),
      ]);
      if (options.wait === true && operation.status !== 'succeeded') process.exitCode = EXIT.partial;
    });

  remoteCommand(program, 'import')
    .description("imports a fastlane tree's listing texts into the project (all or nothing)")
    .requiredOption('--project <id>', 'project id')
    .option('--dir <path>', 'the folder holding fastlane/metadata', '.')
    .action(async (options: RemoteOptions & { project: string; dir: string }) => {
      const remote = remoteOf(options);
      const tree = await readTree(options.dir);
      if (tree.texts.size === 0) {
        throw new RemoteError(
          'INVALID_REQUEST',
          `--dir: no metadata/*.txt files under ${options.dir}`,
          EXIT.invalid,
        );
      }
      const archive = await packArchive(new Map(tree.texts), 'tar.gz');
      const result = await remote.upload<{ imported: { store: string; locale: string; fields: number }[] }>(
        `/projects/${encodeURIComponent(options.project)}/import`,
        archive,
        'application/gzip',
      );
      emit(
        output(),
        result,
        result.imported.map((i) => `Imported ${i.store} ${i.locale}: ${plural(i.fields, 'field')}`),
      );
    });

  remoteCommand(program, 'export')
    .description("writes the project's listing texts as a fastlane tree")
    .requiredOption('--project <id>', 'project id')
    .option('--out <path>', 'the folder to write fastlane/ into', '.')
    .action(async (options: RemoteOptions & { project: string; out: string }) => {
      const archive = await remoteOf(options).download(
        `/projects/${encodeURIComponent(options.project)}/export?archive=tar.gz`,
      );
      const contents = await readArchive(archive, IMPORT_LIMITS, () => true);
      const written: string[] = [];
      for (const [name, bytes] of contents.files) {
        const target = path.join(options.out, name);
        await fs.mkdir(path.dirname(target), { recursive: true });
        await fs.writeFile(target, bytes);
        written.push(name);
      }
      emit(output(), { written }, [`Wrote ${plural(written.length, 'file')} under ${options.out}`]);
    });
}
