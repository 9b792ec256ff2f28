/** In-app purchases and subscriptions with their texts (design.md §17). */
import type { Command } from 'commander';
import type { Store } from '../../shared/stores.js';
import { emit, withProject, type Output } from '../command-kit.js';

export function productsCommands(program: Command, output: () => Output): void {
  const products = program.command('products').description('in-app purchases and subscriptions');
  products
    .command('list')
    .description("both stores' products with their texts per locale, as the last sync read them")
    .requiredOption('--project <id>', 'project id')
    .option('--store <store>', 'appstore or playstore')
    .action(async (options: { project: string; store?: Store }) => {
      const view = await withProject(options.project, (ctx, services) =>
        services.products.list(
          ctx,
          options.project,
          options.store === undefined ? {} : { store: options.store },
        ),
      );
      emit(
        output(),
        view,
        view.products.length === 0
          ? ['No products: sync the project first (or the apps have none)']
          : view.products.map(
              (p) =>
                `${p.store}  ${p.kind}  ${p.productId}  ${p.state ?? '-'}  locales: ${Object.keys(p.locales).sort().join(',') || '-'}` +
                (p.pending > 0 ? `  pending: ${p.pending}` : ''),
            ),
      );
    });
}
