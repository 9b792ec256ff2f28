/** Screenshots and app previews: list, upload, fastlane export and import. */
import type { Command } from 'commander';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Store } from '../../shared/stores.js';
import { emit, plural, withProject, type Output } from '../command-kit.js';
import { readMediaTree } from '../file-trees.js';
import { createRemote, type RemoteOptions } from '../remote.js';

export function mediaCommands(program: Command, output: () => Output): void {
  const media = program.command('media').description('screenshots and app previews');
  media
    .command('list')
    .description("a project's media slots and their files, in order")
    .requiredOption('--project <id>', 'project id')
    .option('--store <store>', 'appstore or playstore')
    .option('--locale <code>', "the store's locale code")
    .action(async (options: { project: string; store?: Store; locale?: string }) => {
      const { slots } = await withProject(options.project, (ctx, services) =>
        services.media.list(ctx, options.project, {
          ...(options.store !== undefined && { store: options.store }),
          ...(options.locale !== undefined && { locale: options.locale }),
        }),
      );
      emit(
        output(),
        { slots },
        slots.length === 0
          ? ['No media']
          : slots.flatMap((slot) => [
              `${slot.store}/${slot.locale}/${slot.slotType}  ${slot.items.length}/${slot.maxItems}  ${slot.state}`,
              ...slot.items.map(
                (item) =>
                  `  ${item.position}. ${item.fileName}  ${item.width}×${item.height}  ${item.bytes} bytes  ${item.sha256.slice(0, 12)}  ${item.id}`,
              ),
            ]),
      );
    });
  media
    .command('upload')
    .description(
      'upload files into a slot, in the order given (each checked against the slot’s rules); with --url or ' +
        'APPMETA_URL through that server as the key’s member, else on the database as the operator',
    )
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--store <store>', 'appstore or playstore')
    .requiredOption('--locale <code>', "the store's locale code")
    .requiredOption('--slot <type>', 'APP_IPHONE_67, PREVIEW_IPHONE_67, phoneScreenshots, icon, ...')
    .option('--url <url>', 'a running server (default: APPMETA_URL)')
    .option('--key <key>', 'an API key (default: APPMETA_KEY)')
    .argument('<files...>', 'image or video files')
    .action(async (files: string[], options: UploadOptions) => {
      const remote = options.url !== undefined || (process.env.APPMETA_URL ?? '') !== '';
      const uploaded = remote ? await uploadRemotely(files, options) : await uploadOnDatabase(files, options);
      emit(
        output(),
        { uploaded },
        uploaded.map(
          (u) =>
            `Uploaded ${u.file} → ${options.store}/${options.locale}/${options.slot} #${u.item.position} (${u.item.width}×${u.item.height}, ${u.item.sha256.slice(0, 12)})` +
            (u.notVerified.length > 0 ? `; not verified: ${u.notVerified.join(', ')}` : ''),
        ),
      );
    });
  media
    .command('export')
    .description("write a project's screenshots and previews as a fastlane tree into a directory")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'target directory (created if missing)')
    .action(async (options: { project: string; dir: string }) => {
      const written = await withProject(options.project, async (ctx, services) => {
        const entries = await services.mediaTransfer.exportEntries(ctx, options.project);
        for (const entry of entries) {
          const target = path.join(options.dir, entry.path);
          await fs.mkdir(path.dirname(target), { recursive: true });
          await pipeline(await entry.open(), createWriteStream(target));
        }
        return entries.map((e) => e.path);
      });
      emit(output(), { files: written }, [`Wrote ${written.length} files under ${options.dir}`]);
    });
  media
    .command('import')
    .description('import the screenshots and previews of a fastlane tree in a directory (all or nothing)')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'the directory holding fastlane/ (a repository, or fastlane/ itself)')
    .action(async (options: { project: string; dir: string }) => {
      const result = await withProject(options.project, (ctx, services) =>
        services.mediaTransfer.importTree(ctx, options.project, (want, onFile) =>
          readMediaTree(options.dir, want, onFile),
        ),
      );
      emit(output(), result, [
        ...result.imported.map(
          (i) => `Imported ${i.store}/${i.locale}/${i.slotType}: ${plural(i.items, 'file')}`,
        ),
        ...(result.imported.length === 0 ? ['Nothing changed'] : []),
        ...result.skipped.map((s) => `Skipped ${s.path}: ${s.reason}`),
      ]);
    });
}

interface UploadOptions extends RemoteOptions {
  project: string;
  store: Store;
  locale: string;
  slot: string;
}
interface Uploaded {
  file: string;
  item: { position: number; width: number | null; height: number | null; sha256: string };
  notVerified: string[];
}

/** The content types of an upload, by extension (the server checks the bytes anyway). */
const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.m4v': 'video/x-m4v',
};

async function uploadOnDatabase(files: string[], options: UploadOptions): Promise<Uploaded[]> {
  return withProject(options.project, async (ctx, services) => {
    const items = [];
    for (const file of files) {
      const result = await services.media.upload(
        ctx,
        options.project,
        { store: options.store, locale: options.locale, slotType: options.slot },
        { open: async () => ({ stream: createReadStream(file), fileName: path.basename(file) }) },
      );
      items.push({ file, ...result });
    }
    return items;
  });
}

async function uploadRemotely(files: string[], options: UploadOptions): Promise<Uploaded[]> {
  const remote = createRemote({
    ...(options.url && { url: options.url }),
    ...(options.key && { key: options.key }),
  });
  const slot = [options.store, options.locale, options.slot].map(encodeURIComponent).join('/');
  const items: Uploaded[] = [];
  for (const file of files) {
    const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    const answer = await remote.upload<Uploaded['item'] & { notVerified: string[] }>(
      `/projects/${encodeURIComponent(options.project)}/media/${slot}?fileName=${encodeURIComponent(path.basename(file))}`,
      await fs.readFile(file),
      type,
    );
    items.push({ file, item: answer, notVerified: answer.notVerified });
  }
  return items;
}
