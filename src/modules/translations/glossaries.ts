/**
 * An organization's glossaries (design.md §14): per language pair, the terms a machine
 * translation must render as given — the app's name and trademarks map to themselves. Kept here;
 * the provider gets its copy when a translation first needs it after a change (a glossary is
 * immutable at DeepL, so a change is a new provider glossary and the old one is deleted).
 */
import { createHash } from 'node:crypto';
import type { TranslationProvider } from '../../connectors/translation-provider.js';
import { ProviderError } from '../../connectors/translation-provider.js';
import type { Executor } from '../../db/database.js';
import { invalid, notFound, type ErrorDetail } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import { translationsRepository as repo, type GlossaryRow } from './translations.repository.js';

/** DeepL's limits of a glossary entry, the strictest of the providers' (tab-separated, one line). */
const MAX_ENTRIES = 5_000;
const MAX_TERM = 1_024;
const LANGUAGE = /^[a-z]{2,3}$/;

export interface Glossary {
  sourceLanguage: string;
  targetLanguage: string;
  entries: Record<string, string>;
  updatedAt: string;
}

export interface GlossaryInput {
  /** Terms kept as they are (each maps to itself). */
  terms?: string[];
  /** source term → target term. */
  entries?: Record<string, string>;
}

const toGlossary = (row: GlossaryRow): Glossary => ({
  sourceLanguage: row.source_language,
  targetLanguage: row.target_language,
  entries: JSON.parse(row.entries) as Record<string, string>,
  updatedAt: row.updated_at,
});

function termProblem(term: string): string | null {
  if (term.trim() === '') return 'is empty';
  if (term !== term.trim()) return 'has spaces around it';
  if ([...term].some((c) => c.charCodeAt(0) < 0x20)) return 'has a tab, a line break or a control character';
  if ([...term].length > MAX_TERM) return `is longer than ${MAX_TERM} characters`;
  return null;
}

function normalize(source: string, target: string, input: GlossaryInput): Record<string, string> {
  const details: ErrorDetail[] = [];
  for (const [name, value] of [
    ['source', source],
    ['target', target],
  ] as const) {
    if (!LANGUAGE.test(value)) {
      details.push({ field: name, message: `must be a language code such as en or de (got "${value}")` });
    }
  }
  if (source === target) details.push({ field: 'target', message: 'must differ from source' });
  const entries: Record<string, string> = {};
  (input.terms ?? []).forEach((term, index) => {
    const problem = termProblem(term);
    if (problem !== null) details.push({ field: `terms[${index}]`, message: problem });
    else entries[term] = term;
  });
  for (const [from, to] of Object.entries(input.entries ?? {})) {
    const problem = termProblem(from) ?? termProblem(to);
    if (problem !== null) details.push({ field: `entries["${from}"]`, message: problem });
    else entries[from] = to;
  }
  if (Object.keys(entries).length === 0 && details.length === 0) {
    details.push({ field: 'terms', message: 'give at least one term or entry (DELETE removes a glossary)' });
  }
  if (Object.keys(entries).length > MAX_ENTRIES) {
    details.push({ field: 'entries', message: `at most ${MAX_ENTRIES} entries` });
  }
  if (details.length > 0) {
    throw invalid(`Invalid glossary: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
  }
  return entries;
}

/** What the provider's copy was made from: the entries and the key's account. */
const copyHash = (entries: string, apiKey: string) =>
  createHash('sha256').update(entries).update('\0').update(apiKey).digest('hex');

export function createGlossaries(deps: {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  provider: TranslationProvider;
  /** The organization's provider key, if any (to delete a provider copy with). */
  apiKeyOf: (organizationId: string) => Promise<string | null>;
}) {
  const { db, clock, audit, provider, apiKeyOf } = deps;

  /** Deletes a provider copy; one already gone, or a key that no longer works, is no reason to fail. */
  async function dropCopy(apiKey: string | null, glossaryId: string | null) {
    if (apiKey === null || glossaryId === null) return;
    await provider.deleteGlossary(apiKey, glossaryId).catch((error: unknown) => {
      if (!(error instanceof ProviderError)) throw error;
    });
  }

  return {
    async list(ctx: RequestContext): Promise<Glossary[]> {
      authorize(ctx, 'glossaries.list');
      return (await repo.listGlossaries(db, ctx.organizationId)).map(toGlossary);
    },

    async set(ctx: RequestContext, source: string, target: string, input: GlossaryInput): Promise<Glossary> {
      authorize(ctx, 'glossaries.set');
      const entries = normalize(source, target, input);
      const at = clock.now().toISOString();
      const previous = await repo.findGlossary(db, ctx.organizationId, source, target);
      await db.transaction().execute(async (trx) => {
        await repo.upsertGlossary(trx, {
          organization_id: ctx.organizationId,
          source_language: source,
          target_language: target,
          entries: JSON.stringify(entries),
          // The provider's copy is made again when next needed; the old one stays until then.
          provider_glossary_id: previous?.provider_glossary_id ?? null,
          provider_entries_hash: previous?.provider_entries_hash ?? null,
          updated_at: at,
        });
        await audit.record(
          trx,
          ctx,
          'glossaries.set',
          { type: 'glossary', id: `${source}-${target}` },
          { entries: Object.keys(entries).length },
        );
      });
      return { sourceLanguage: source, targetLanguage: target, entries, updatedAt: at };
    },

    async remove(ctx: RequestContext, source: string, target: string): Promise<void> {
      authorize(ctx, 'glossaries.delete');
      const row = await repo.findGlossary(db, ctx.organizationId, source, target);
      if (row === undefined) throw notFound(`Glossary ${source}-${target}`);
      await db.transaction().execute(async (trx) => {
        await repo.deleteGlossary(trx, ctx.organizationId, source, target);
        await audit.record(trx, ctx, 'glossaries.delete', { type: 'glossary', id: `${source}-${target}` });
      });
      await dropCopy(await apiKeyOf(ctx.organizationId), row.provider_glossary_id);
    },

    /**
     * The provider's glossary for a translation from one locale to another, made (again) when the
     * entries or the key changed since its copy was made; undefined when the organization has none
     * for the pair or the provider has no glossaries for it.
     */
    async providerGlossaryFor(
      organizationId: string,
      apiKey: string,
      sourceLocale: string,
      targetLocale: string,
    ): Promise<string | undefined> {
      const pair = provider.glossaryPair(sourceLocale, targetLocale);
      if (pair === null) return undefined;
      const row = await repo.findGlossary(db, organizationId, pair.source, pair.target);
      if (row === undefined) return undefined;
      const hash = copyHash(row.entries, apiKey);
      if (row.provider_glossary_id !== null && row.provider_entries_hash === hash)
        return row.provider_glossary_id;
      const id = await provider.createGlossary(apiKey, {
        name: `appmeta ${pair.source}-${pair.target}`,
        sourceLocale,
        targetLocale,
        entries: JSON.parse(row.entries) as Record<string, string>,
      });
      await repo.setGlossaryCopy(db, row, id, hash);
      // The old copy may belong to a key since replaced: deleting it with this key may fail, harmlessly.
      if (row.provider_glossary_id !== null) await dropCopy(apiKey, row.provider_glossary_id);
      return id;
    },
  };
}

export type Glossaries = ReturnType<typeof createGlossaries>;
