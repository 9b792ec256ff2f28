/** Translation states, XLIFF for translators, machine-translated drafts. */
import type { Command } from 'commander';
import fs from 'node:fs/promises';
import { invalidField } from '../../errors.js';
import type { Store } from '../../shared/stores.js';
import { emit, plural, withProject, type Output } from '../command-kit.js';

export function translationsCommands(program: Command, output: () => Output): void {
  const translations = program
    .command('translations')
    .description('translation states, XLIFF for translators, machine-translated drafts');
  translations
    .command('status')
    .description('per target locale: how many fields are missing, outdated, drafted or current')
    .requiredOption('--project <id>', 'project id')
    .option('--locale <code>', 'one target locale, field by field')
    .action(async (options: { project: string; locale?: string }) => {
      const status = await withProject(options.project, (ctx, services) =>
        services.translations.status(ctx, options.project),
      );
      const items = status.items.filter((i) => options.locale === undefined || i.locale === options.locale);
      const rows = new Map<string, Record<string, number>>();
      for (const item of items) {
        const key = `${item.store === 'appstore' ? 'App Store' : 'Google Play'}  ${item.locale}`;
        const row = rows.get(key) ?? { missing: 0, outdated: 0, draft: 0, current: 0 };
        row[item.state]! += 1;
        rows.set(key, row);
      }
      emit(output(), { ...status, items }, [
        `Source locale: ${status.sourceLocale}`,
        ...(options.locale === undefined
          ? [...rows].map(
              ([key, c]) =>
                `${key}  missing ${c.missing}  outdated ${c.outdated}  draft ${c.draft}  current ${c.current}`,
            )
          : items.map(
              (i) =>
                `${i.store}/${i.field}  ${i.state}` +
                (i.draft === undefined
                  ? ''
                  : `  (draft ${i.draft.length}/${i.draft.limit ?? '-'}${i.draft.overLimit ? ', over the limit' : ''})`),
            )),
        ...(items.length === 0 ? ['Nothing to translate: no target locale has a text or a source'] : []),
      ]);
    });
  translations
    .command('export')
    .description('write the XLIFF of one target locale for translators')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--locale <code>', 'the target locale, e.g. de-DE')
    .option('--xliff-version <version>', 'XLIFF 2.0 (default) or 1.2', '2.0')
    .option('--out <file>', 'the file to write (default: <locale>.xlf)')
    .action(async (options: { project: string; locale: string; xliffVersion: string; out?: string }) => {
      if (options.xliffVersion !== '2.0' && options.xliffVersion !== '1.2') {
        throw invalidField('--xliff-version', 'must be 2.0 or 1.2');
      }
      const version = options.xliffVersion;
      const xml = await withProject(options.project, (ctx, services) =>
        services.translations.exportXliff(ctx, options.project, options.locale, version),
      );
      const file = options.out ?? `${options.locale}.xlf`;
      await fs.writeFile(file, xml);
      emit(output(), { file, bytes: Buffer.byteLength(xml) }, [`Wrote ${file} (XLIFF ${version})`]);
    });
  translations
    .command('import')
    .description("take a translator's XLIFF back (validated like edits, all or nothing)")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--locale <code>', 'the target locale, e.g. de-DE')
    .requiredOption('--file <file>', 'the XLIFF file')
    .action(async (options: { project: string; locale: string; file: string }) => {
      const xml = await fs.readFile(options.file).catch((error: NodeJS.ErrnoException) => {
        throw invalidField('--file', `cannot be read (${error.code ?? String(error)})`);
      });
      const result = await withProject(options.project, (ctx, services) =>
        services.translations.importXliff(ctx, options.project, options.locale, xml),
      );
      emit(output(), result, [
        ...result.imported.map((i) => `Imported ${i.store}/${options.locale}/${i.field}`),
        result.imported.length === 0
          ? 'Nothing changed'
          : `${plural(result.imported.length, 'unit')} imported`,
        ...(result.ignored > 0 ? [`${plural(result.ignored, 'unit')} untouched`] : []),
      ]);
    });
  translations
    .command('machine')
    .description('machine-translate the missing and outdated fields into drafts (DeepL)')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--locales <codes>', 'target locales, comma-separated')
    .option('--store <store>', 'appstore or playstore (default: both)')
    .option('--fields <names>', 'fields, comma-separated (default: every translatable field)')
    .option('--formality <more|less>', 'where the language has it')
    .action(
      async (options: {
        project: string;
        locales: string;
        store?: Store;
        fields?: string;
        formality?: string;
      }) => {
        if (options.formality !== undefined && options.formality !== 'more' && options.formality !== 'less') {
          throw invalidField('--formality', 'must be more or less');
        }
        const list = (value: string) =>
          value
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean);
        const formality = options.formality;
        const result = await withProject(options.project, (ctx, services) =>
          services.machineTranslation.translate(ctx, options.project, {
            targetLocales: list(options.locales),
            ...(options.store !== undefined && { stores: [options.store] }),
            ...(options.fields !== undefined && { fields: list(options.fields) }),
            ...(formality !== undefined && { formality }),
          }),
        );
        emit(output(), result, [
          ...result.drafts.map(
            (d) =>
              `Draft ${d.store}/${d.locale}/${d.field}  ${d.length}/${d.limit ?? '-'}${d.overLimit ? '  over the limit' : ''}`,
          ),
          ...result.errors.map((e) => `Failed ${e.store}/${e.locale}/${e.field}: ${e.message}`),
          `${plural(result.drafts.length, 'draft')}; ${result.usage.characters} characters (this month ${result.usage.month.characters})`,
        ]);
        if (result.errors.length > 0) process.exitCode = 1;
      },
    );
  translations
    .command('accept')
    .description("accept a locale's machine drafts: they become the texts")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--locale <code>', 'the target locale')
    .option('--store <store>', 'appstore or playstore')
    .option('--fields <names>', 'fields, comma-separated')
    .action(async (options: { project: string; locale: string; store?: Store; fields?: string }) => {
      const result = await withProject(options.project, (ctx, services) =>
        services.translations.accept(ctx, options.project, options.locale, {
          ...(options.store !== undefined && { store: options.store }),
          ...(options.fields !== undefined && { fields: options.fields.split(',').map((f) => f.trim()) }),
        }),
      );
      emit(output(), result, [
        ...result.accepted.map((a) => `Accepted ${a.store}/${options.locale}/${a.field}`),
        ...result.skipped.map((s) => `Skipped ${s.store}/${options.locale}/${s.field}: ${s.reason}`),
      ]);
    });
}
