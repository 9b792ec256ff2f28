/** App details and App Review information (design.md §19). */
import type { Command } from 'commander';
import type { Store } from '../../shared/stores.js';
import { emit, withProject, type Output } from '../command-kit.js';

/** A detail as a line shows it: the password only as whether it is set. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object') return (value as { set?: boolean }).set === true ? '(set)' : '-';
  return typeof value === 'boolean' ? (value ? 'true' : 'false') : (value as string);
}

export function detailsCommands(program: Command, output: () => Output): void {
  program
    .command('details')
    .description('app details and App Review information')
    .command('get')
    .description("a store's details, each with its state against the store (the demo password only as set)")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--store <store>', 'appstore or playstore')
    .action(async (options: { project: string; store: Store }) => {
      const view = await withProject(options.project, (ctx, services) =>
        services.details.get(ctx, options.project, options.store),
      );
      type Shown = Parameters<typeof shown>[0];
      const lines = Object.entries(view.details).flatMap(([field, value]): (readonly [string, Shown])[] =>
        field === 'review' && value !== null && typeof value === 'object' && !('set' in value)
          ? Object.entries(value as Record<string, Shown>).map(
              ([name, inner]) => [`review.${name}`, inner] as const,
            )
          : [[field, value as Shown] as const],
      );
      emit(
        output(),
        view,
        lines.map(([field, value]) => {
          const state = view.states[field];
          return `${field}  ${shown(value)}${state !== undefined && state !== 'unchanged' ? `  ${state}` : ''}`;
        }),
      );
    });
}
