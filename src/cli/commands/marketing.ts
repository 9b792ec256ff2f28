/** App Store custom product pages and in-app events with their texts (design.md §18). */
import type { Command } from 'commander';
import { emit, withProject, type Output } from '../command-kit.js';

const locales = (texts: Record<string, unknown>) => Object.keys(texts).sort().join(',') || '-';

export function marketingCommands(program: Command, output: () => Output): void {
  program
    .command('product-pages')
    .description('App Store custom product pages')
    .command('list')
    .description('custom product pages with their state and locales, as the last sync read them')
    .requiredOption('--project <id>', 'project id')
    .action(async (options: { project: string }) => {
      const view = await withProject(options.project, (ctx, services) =>
        services.marketing.listPages(ctx, options.project),
      );
      emit(
        output(),
        view,
        view.pages.length === 0
          ? ['No custom product pages: sync the project first (or the app has none)']
          : view.pages.map(
              (p) =>
                `${p.pageId}  ${p.name}  ${p.version.state ?? '-'}${p.version.editable ? '' : ' (read-only)'}  locales: ${locales(p.locales)}` +
                (p.pending > 0 ? `  pending: ${p.pending}` : ''),
            ),
      );
    });

  program
    .command('app-events')
    .description('App Store in-app events')
    .command('list')
    .description('in-app events with their state and locales, as the last sync read them')
    .requiredOption('--project <id>', 'project id')
    .action(async (options: { project: string }) => {
      const view = await withProject(options.project, (ctx, services) =>
        services.marketing.listEvents(ctx, options.project),
      );
      emit(
        output(),
        view,
        view.events.length === 0
          ? ['No in-app events: sync the project first (or the app has none)']
          : view.events.map(
              (e) =>
                `${e.eventId}  ${e.referenceName}  ${e.state ?? '-'}${e.editable ? '' : ' (read-only)'}  locales: ${locales(e.locales)}` +
                (e.pending > 0 ? `  pending: ${e.pending}` : ''),
            ),
      );
    });
}
