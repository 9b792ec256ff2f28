/**
 * Machine translation into drafts (design.md §14): the fields asked for (by default the missing
 * and outdated ones) go to the provider grouped by target language, each distinct text once, in
 * chunks; keywords go one by one and come back as a comma-separated list within the limit. Each
 * result is stored as a draft — never pushed until a member accepts it. A provider refusal is
 * reported per field; once the provider says the key, the quota or the rate is the problem, the
 * remaining fields are not sent (they would be refused alike).
 */
import type { Formality, TranslationProvider } from '../../connectors/translation-provider.js';
import { ProviderError } from '../../connectors/translation-provider.js';
import type { Executor } from '../../db/database.js';
import { AppError, invalid, type ErrorDetail } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { STORES, type Store } from '../../shared/stores.js';
import { authorize, requireLocalesInScope, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import { codePoints } from '../listings/index.js';
import type { ProductLimits } from '../../shared/product-fields.js';
import { createEntryRules } from './entry-rules.js';
import type { ProjectsService } from '../projects/index.js';
import type { Glossaries } from './glossaries.js';
import { entriesOf, readMatrix, storeLocaleOf, type MatrixEntry } from './translation-matrix.js';
import { hashText, isTranslatable, type TranslationState } from './translation-state.js';
import { translationsRepository as repo } from './translations.repository.js';

/** Texts per provider request, and their characters: well inside DeepL's 50 texts and 128 KiB. */
const CHUNK_TEXTS = 50;
const CHUNK_CHARACTERS = 30_000;
const MAX_TARGET_LOCALES = 50;

export interface MachineRequest {
  targetLocales: string[];
  stores?: Store[];
  fields?: string[];
  /** Which fields to translate, by state; by default the gaps: missing and outdated. */
  states?: TranslationState[];
  formality?: Formality;
}

export interface MachineDraft {
  store: Store;
  locale: string;
  field: string;
  length: number;
  limit: number | null;
  overLimit: boolean;
  note: string | null;
}

export interface MachineError {
  store: Store;
  locale: string;
  field: string;
  code: string;
  message: string;
  retryAfterSeconds?: number;
}

export interface MachineResult {
  provider: string;
  drafts: MachineDraft[];
  errors: MachineError[];
  /** Characters billed by the provider for this request, and the organization's month so far. */
  usage: { characters: number; month: { period: string; characters: number; requests: number } };
}

/** Keywords as a list: split on commas, trimmed, empty ones dropped, each once. */
export function splitKeywords(value: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of value.split(',')) {
    const keyword = raw.trim().replace(/\s+/g, ' ');
    if (keyword === '' || seen.has(keyword.toLocaleLowerCase())) continue;
    seen.add(keyword.toLocaleLowerCase());
    out.push(keyword);
  }
  return out;
}

/**
 * Translated keywords joined as the store wants them (comma-separated, no spaces around commas),
 * each once, taken in order while they fit the limit; the rest are named in the note.
 */
export function joinKeywords(translated: string[], limit: number): { text: string; note: string | null } {
  // A translation may itself hold a comma ("foto, video"): every part is a keyword of its own.
  const keywords = splitKeywords(translated.join(','));
  const kept: string[] = [];
  const left: string[] = [];
  let length = 0;
  for (const keyword of keywords) {
    const added = codePoints(keyword) + (kept.length > 0 ? 1 : 0);
    if (length + added <= limit) {
      kept.push(keyword);
      length += added;
    } else left.push(keyword);
  }
  return {
    text: kept.join(','),
    note: left.length === 0 ? null : `Left out to stay within ${limit} characters: ${left.join(', ')}.`,
  };
}

const period = (at: Date) => at.toISOString().slice(0, 7);

function checkRequest(request: MachineRequest, sourceLocale: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (request.targetLocales.length === 0)
    details.push({ field: 'targetLocales', message: 'must not be empty' });
  if (request.targetLocales.length > MAX_TARGET_LOCALES) {
    details.push({ field: 'targetLocales', message: `at most ${MAX_TARGET_LOCALES} locales per request` });
  }
  request.targetLocales.forEach((locale, index) => {
    if (!STORES.some((store) => storeLocaleOf(store, locale) !== null)) {
      details.push({
        field: `targetLocales[${index}]`,
        message: `"${locale}" is not a locale of either store`,
      });
    } else if (STORES.some((store) => storeLocaleOf(store, locale) === storeLocaleOf(store, sourceLocale))) {
      details.push({ field: `targetLocales[${index}]`, message: `${locale} is the project's source locale` });
    }
  });
  (request.stores ?? []).forEach((store, index) => {
    if (!(STORES as readonly string[]).includes(store)) {
      details.push({ field: `stores[${index}]`, message: `must be appstore or playstore (got "${store}")` });
    }
  });
  const stores = (request.stores ?? STORES).filter((store) => (STORES as readonly string[]).includes(store));
  (request.fields ?? []).forEach((field, index) => {
    if (!stores.some((store) => isTranslatable(store, field))) {
      details.push({
        field: `fields[${index}]`,
        message: `"${field}" is not a translatable field of ${stores.join(' or ')} (URLs are not translated)`,
      });
    }
  });
  return details;
}

/** One text sent to the provider, and the fields waiting for it. */
interface Job {
  entry: MatrixEntry;
  /** The texts this field needs: one, or each keyword. */
  texts: string[];
}

export function createMachineTranslation(deps: {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  projects: Pick<ProjectsService, 'require'>;
  provider: TranslationProvider;
  glossaries: Pick<Glossaries, 'providerGlossaryFor'>;
  /** The key to translate with: the organization's, else the server's DEEPL_API_KEY. */
  apiKeyOf: (organizationId: string) => Promise<string | null>;
  /** The organization's do-not-translate terms (its settings). */
  keptTermsOf: (organizationId: string) => Promise<readonly string[]>;
  productLimits: ProductLimits;
}) {
  const { db, clock, audit, projects, provider, glossaries, apiKeyOf, keptTermsOf } = deps;
  const rules = createEntryRules(deps.productLimits);

  /** Translates the texts of one target language; answers text → translation, or the error. */
  async function translateAll(
    organizationId: string,
    apiKey: string,
    sourceLocale: string,
    targetLocale: string,
    texts: string[],
    formality: Formality | undefined,
  ): Promise<{ translations: Map<string, string>; billed: number }> {
    const glossaryId = await glossaries.providerGlossaryFor(
      organizationId,
      apiKey,
      sourceLocale,
      targetLocale,
    );
    const keptTerms = await keptTermsOf(organizationId);
    const translations = new Map<string, string>();
    let billed = 0;
    let chunk: string[] = [];
    let characters = 0;
    const send = async () => {
      if (chunk.length === 0) return;
      const result = await provider.translate(apiKey, {
        texts: chunk,
        sourceLocale,
        targetLocale,
        ...(formality !== undefined && { formality }),
        ...(glossaryId !== undefined && { glossaryId }),
        ...(keptTerms.length > 0 && { keptTerms }),
      });
      chunk.forEach((text, index) => translations.set(text, result.texts[index]!));
      billed += result.billedCharacters;
      await repo.addUsage(db, organizationId, period(clock.now()), result.billedCharacters);
      chunk = [];
      characters = 0;
    };
    for (const text of texts) {
      const length = codePoints(text);
      if (chunk.length === CHUNK_TEXTS || (chunk.length > 0 && characters + length > CHUNK_CHARACTERS))
        await send();
      chunk.push(text);
      characters += length;
    }
    await send();
    return { translations, billed };
  }

  return {
    async translate(ctx: RequestContext, projectId: string, request: MachineRequest): Promise<MachineResult> {
      authorize(ctx, 'translations.machine');
      await projects.require(ctx, projectId);
      const matrix = await readMatrix(db, ctx.organizationId, projectId, deps.productLimits);
      const details = checkRequest(request, matrix.sourceLocale);
      if (details.length > 0) {
        throw invalid(
          `Invalid request: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
          details,
        );
      }
      requireLocalesInScope(ctx, request.targetLocales);
      const apiKey = await apiKeyOf(ctx.organizationId);
      if (apiKey === null) {
        throw new AppError(
          'CONFLICT',
          'No DeepL key is set for this organization: an admin sets one with PUT /api/v1/organization/credentials/deepl',
        );
      }
      if (provider.sourceLanguage(matrix.sourceLocale) === null) {
        throw new AppError(
          'CONFLICT',
          `${provider.name} cannot translate from the source locale ${matrix.sourceLocale}`,
        );
      }
      const states = new Set(request.states ?? ['missing', 'outdated']);
      const stores = new Set(request.stores ?? STORES);
      const fields = request.fields === undefined ? null : new Set(request.fields);
      const wanted = [...new Set(request.targetLocales)].flatMap((locale) =>
        entriesOf(matrix, locale).filter(
          (e) =>
            e.source !== null &&
            stores.has(e.store) &&
            (fields === null || fields.has(e.field)) &&
            states.has(e.state),
        ),
      );

      const drafts: MachineDraft[] = [];
      const errors: MachineError[] = [];
      const fail = (
        entry: MatrixEntry,
        error: { code: string; message: string; retryAfterSeconds?: number },
      ) => errors.push({ store: entry.store, locale: entry.locale, field: entry.field, ...error });
      // Once the key, the quota or the rate is the problem, every later call would be refused too.
      let stopped: ProviderError | null = null;
      let billed = 0;
      const at = clock.now().toISOString();

      const byLanguage = new Map<string, Job[]>();
      for (const entry of wanted) {
        const language = provider.targetLanguage(entry.locale);
        if (language === null) {
          fail(entry, {
            code: 'PROVIDER_UNSUPPORTED',
            message: `${provider.name} does not translate into ${entry.locale}`,
          });
          continue;
        }
        const rule = rules.ruleOf(entry);
        // Keywords and list items (benefits) are translated one by one.
        const texts = rule.keywords
          ? splitKeywords(entry.source!)
          : rule.list
            ? entry.source!.split('\n')
            : [entry.source!];
        byLanguage.set(language, [...(byLanguage.get(language) ?? []), { entry, texts }]);
      }

      for (const jobs of byLanguage.values()) {
        if (stopped !== null) {
          jobs.forEach((job) => fail(job.entry, errorOf(stopped!)));
          continue;
        }
        const texts = [...new Set(jobs.flatMap((job) => job.texts))];
        let result: Awaited<ReturnType<typeof translateAll>>;
        try {
          result = await translateAll(
            ctx.organizationId,
            apiKey,
            matrix.sourceLocale,
            jobs[0]!.entry.locale,
            texts,
            request.formality,
          );
        } catch (error) {
          if (!(error instanceof ProviderError)) throw error;
          if (error.code !== 'PROVIDER_REFUSED' && error.code !== 'PROVIDER_UNAVAILABLE') stopped = error;
          jobs.forEach((job) => fail(job.entry, errorOf(error)));
          continue;
        }
        billed += result.billed;
        for (const { entry, texts: parts } of jobs) {
          const translated = parts.map((text) => result.translations.get(text)!);
          const rule = rules.ruleOf(entry);
          const { text, note } = rule.keywords
            ? joinKeywords(translated, rule.max!)
            : { text: rule.list ? translated.join('\n') : translated[0]!, note: null };
          await repo.setDraft(db, {
            project_id: projectId,
            store: entry.store,
            locale: entry.locale,
            field: entry.field,
            // A target with no record yet is current against the source as it is now.
            source_value: entry.state === 'current' ? entry.source : entry.translatedFrom,
            source_hash: hashText(entry.state === 'current' ? entry.source : entry.translatedFrom),
            draft_value: text,
            draft_source_value: entry.source,
            draft_source_hash: hashText(entry.source),
            draft_provider: provider.name,
            draft_note: note,
            draft_at: at,
            updated_at: at,
          });
          drafts.push({
            store: entry.store,
            locale: entry.locale,
            field: entry.field,
            ...rules.fitOf(entry, text),
            note,
          });
        }
      }

      await audit.record(
        db,
        ctx,
        'translations.machine',
        { type: 'project', id: projectId },
        { locales: request.targetLocales, drafts: drafts.length, errors: errors.length, characters: billed },
      );
      const month = period(clock.now());
      return {
        provider: provider.name,
        drafts,
        errors,
        usage: {
          characters: billed,
          month: { period: month, ...(await repo.usageOf(db, ctx.organizationId, month)) },
        },
      };
    },

    /** The organization's machine-translation use this month. */
    async usage(organizationId: string) {
      const month = period(clock.now());
      return { period: month, ...(await repo.usageOf(db, organizationId, month)) };
    },
  };
}

const errorOf = (error: ProviderError) => ({
  code: error.code,
  message: error.message,
  ...(error.retryAfterSeconds !== null && { retryAfterSeconds: error.retryAfterSeconds }),
});

export type MachineTranslation = ReturnType<typeof createMachineTranslation>;
