/** Listings in and out of fastlane trees. */
import type { Command } from 'commander';
import fs from 'node:fs/promises';
import path from 'node:path';
import { emit, plural, withProject, type Output } from '../command-kit.js';
import { readTree } from '../file-trees.js';

export function listingsCommands(program: Command, output: () => Output): void {
  const listings = program.command('listings').description('store listings in the fastlane layout');
  listings
    .command('export')
    .description("write a project's listings as a fastlane tree (fastlane/metadata/...) into a directory")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'target directory (created if missing)')
    .action(async (options: { project: string; dir: string }) => {
      const written = await withProject(options.project, async (ctx, services) => {
        const files = await services.fastlane.exportFiles(ctx, options.project);
        for (const [file, content] of files) {
          const target = path.join(options.dir, file);
          await fs.mkdir(path.dirname(target), { recursive: true });
          await fs.writeFile(target, content);
        }
        return [...files.keys()];
      });
      emit(output(), { files: written }, [`Wrote ${written.length} files under ${options.dir}`]);
    });
  listings
    .command('import')
    .description('import the fastlane tree of a directory (all or nothing)')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'the directory holding fastlane/ (a repository, or fastlane/ itself)')
    .option(
      '--path <folder>',
      'the folder to read as the metadata tree, relative to --dir (when there are several, or it is elsewhere)',
    )
    .action(async (options: { project: string; dir: string; path?: string }) => {
      const tree = await readTree(options.dir, options.path);
      const result = await withProject(
        options.project,
        (ctx, services) =>
          services.fastlane.importTree(ctx, options.project, tree, {
            ...(options.path !== undefined && { path: options.path }),
          }),
        { path: '--path' },
      );
      emit(output(), result, [
        `Read ${result.tree === '' ? options.dir : path.join(options.dir, result.tree)}`,
        ...result.imported.map((i) => `Imported ${i.store}/${i.locale}: ${plural(i.fields, 'field')}`),
        ...(result.releaseNotes > 0
          ? [`Imported ${plural(result.releaseNotes, 'Google Play release note')}`]
          : []),
        ...result.warnings.map((w) => `Warning ${w.store}/${w.locale} ${w.field}: ${w.message}`),
        ...result.skipped.map((s) => `Skipped ${s.path}: ${s.reason}`),
      ]);
    });
}
