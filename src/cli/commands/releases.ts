/** App Store versions, Google Play tracks and their release notes. */
import type { Command } from 'commander';
import type { Store } from '../../shared/stores.js';
import { emit, withProject, type Output } from '../command-kit.js';

export function releasesCommands(program: Command, output: () => Output): void {
  const releases = program
    .command('releases')
    .description('App Store versions, Google Play tracks, release notes');
  releases
    .command('list')
    .description('versions and tracks with their releases, as the last sync read them')
    .requiredOption('--project <id>', 'project id')
    .action(async (options: { project: string }) => {
      const view = await withProject(options.project, (ctx, services) =>
        services.releases.list(ctx, options.project),
      );
      emit(output(), view, [
        ...(view.appStore === null
          ? ['App Store: not synced']
          : view.appStore.versions.map(
              (v) =>
                `App Store ${v.versionString}  ${v.state}${v.editable ? '  editable' : ''}${v.firstVersion ? '  first version' : ''}`,
            )),
        ...(view.playStore === null
          ? ['Google Play: not synced']
          : view.playStore.tracks.flatMap((t) =>
              t.releases.length === 0
                ? [`Google Play ${t.track}: no releases`]
                : t.releases.map(
                    (r) =>
                      `Google Play ${t.track}  ${r.name ?? r.versionCodes.join(',')}  ${r.status}` +
                      (r.userFraction === null ? '' : `  ${Math.round(r.userFraction * 100)}%`) +
                      `  notes: ${Object.keys(r.releaseNotes).length}`,
                  ),
            )),
      ]);
    });
  releases
    .command('create-version')
    .description("creates the next App Store version (the store's refusal is said as it gave it)")
    .requiredOption('--project <id>', 'project id')
    .argument('<versionString>', 'e.g. 2.4.0')
    .action(async (versionString: string, options: { project: string }) => {
      const created = await withProject(options.project, (ctx, services) =>
        services.releases.createVersion(ctx, options.project, versionString),
      );
      emit(output(), created, [
        `Created App Store version ${created.version.versionString} (${created.version.state})`,
      ]);
    });
  releases
    .command('notes')
    .description(
      "release notes per locale: App Store What's New of a version, or Google Play notes per release",
    )
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--store <store>', 'appstore or playstore')
    .option('--version <versionString>', 'App Store: the version (default: the one being prepared)')
    .option('--track <track>', 'Google Play: one track')
    .action(async (options: { project: string; store: Store; version?: string; track?: string }) => {
      const notes = await withProject(options.project, (ctx, services) =>
        services.releases.notes(ctx, options.project, {
          store: options.store,
          ...(options.version !== undefined && { version: options.version }),
          ...(options.track !== undefined && { track: options.track }),
        }),
      );
      const line = (n: { locale: string; value: string | null; state: string }) =>
        `  ${n.locale}  ${n.state}  ${JSON.stringify(n.value)}`;
      emit(
        output(),
        notes,
        notes.store === 'appstore'
          ? notes.version === null
            ? ['No App Store version is being prepared']
            : [`App Store ${notes.version.versionString} (${notes.version.state})`, ...notes.notes.map(line)]
          : notes.releases.flatMap((r) => [
              `Google Play ${r.track} ${r.name ?? r.versionCode} (${r.status})`,
              ...r.notes.map(line),
            ]),
      );
    });
}
