/**
 * DeepL behind the translation provider port, through the official deepl-node client pointed at
 * DEEPL_API_URL. deepl-node's own retries are off: a rate limit is reported per field with the
 * Retry-After DeepL sent, which deepl-node does not expose — it is read from Node's HTTP
 * diagnostics channel, matched to our request by a header only we send.
 */
import { randomUUID } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type * as Deepl from 'deepl-node';
import { lazyModule } from '../../shared/lazy-module.js';
import { KEEP_TAG, keptTermsPattern, markKeptTerms, unmarkKeptTerms } from './kept-terms.js';
import {
  ProviderError,
  type GlossaryInput,
  type TranslateRequest,
  type TranslationProvider,
} from '../translation-provider.js';

/** Loaded when an organization first translates, not by every instance at start-up. */
const deepl = lazyModule<typeof Deepl>('deepl-node');

const SOURCE_LANGUAGES = new Set(
  'ar bg cs da de el en es et fi fr he hu id it ja ko lt lv nb nl pl pt ro ru sk sl sv th tr uk vi zh'.split(
    ' ',
  ),
);
/** Glossary pairs DeepL accepts (GlossarySourceLanguage of its specification; targets alike). */
const GLOSSARY_LANGUAGES = SOURCE_LANGUAGES;
const BRITISH_ENGLISH = new Set(['GB', 'AU', 'IE', 'IN', 'NZ', 'SG', 'ZA']);

/** A store locale's language: Play's old codes (iw, no) become today's. */
function languageOf(locale: string): { language: string; region: string } {
  const [raw = '', ...rest] = locale.split('-');
  const language = { iw: 'he', no: 'nb', in: 'id' }[raw.toLowerCase()] ?? raw.toLowerCase();
  return { language, region: rest.join('-').toUpperCase() };
}

export function deeplTargetLanguage(locale: string): string | null {
  const { language, region } = languageOf(locale);
  if (!SOURCE_LANGUAGES.has(language)) return null;
  if (language === 'en') return BRITISH_ENGLISH.has(region) ? 'en-GB' : 'en-US';
  if (language === 'pt') return region === 'PT' ? 'pt-PT' : 'pt-BR';
  if (language === 'zh') return ['HANT', 'TW', 'HK', 'MO'].includes(region) ? 'zh-HANT' : 'zh-HANS';
  if (language === 'es') return region === 'ES' || region === '' ? 'es' : 'es-419';
  return language;
}

export function deeplSourceLanguage(locale: string): string | null {
  const { language } = languageOf(locale);
  return SOURCE_LANGUAGES.has(language) ? language : null;
}

// Retry-After of DeepL's 429 answers, by our request id (kept briefly: read right after the answer).
const RETRY_HEADER = 'x-appmeta-request';
const retryAfter = new Map<string, number>();
subscribe('http.client.response.finish', (message) => {
  const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
  const id = request.getHeader(RETRY_HEADER);
  if (typeof id !== 'string' || response.statusCode !== 429) return;
  const seconds = Number(response.headers['retry-after']);
  if (Number.isFinite(seconds) && seconds >= 0) {
    retryAfter.set(id, seconds);
    setTimeout(() => retryAfter.delete(id), 60_000).unref();
  }
});

export function createDeepLProvider(options: {
  serverUrl: string | null;
  timeoutMs?: number;
}): TranslationProvider {
  const client = (apiKey: string, requestId: string) =>
    new (deepl().Translator)(apiKey, {
      ...(options.serverUrl !== null && { serverUrl: options.serverUrl }),
      maxRetries: 0,
      minTimeout: options.timeoutMs ?? 10_000,
      sendPlatformInfo: false,
      appInfo: { appName: 'appmeta', appVersion: '0.1.0' },
      headers: { [RETRY_HEADER]: requestId },
    });

  /** deepl-node's errors as ours; the key never appears in a message. */
  async function call<T>(apiKey: string, work: (translator: Deepl.Translator) => Promise<T>): Promise<T> {
    const requestId = randomUUID();
    try {
      return await work(client(apiKey, requestId));
    } catch (error) {
      const detail = error instanceof Error ? error.message.replaceAll(apiKey, '…') : String(error);
      if (error instanceof deepl().AuthorizationError) {
        throw new ProviderError('PROVIDER_AUTH', `DeepL refused the API key (403): ${detail}`);
      }
      if (error instanceof deepl().QuotaExceededError) {
        throw new ProviderError(
          'PROVIDER_QUOTA',
          `DeepL's character quota for this billing period is used up (456)`,
        );
      }
      if (error instanceof deepl().TooManyRequestsError) {
        const seconds = retryAfter.get(requestId) ?? null;
        throw new ProviderError(
          'PROVIDER_RATE_LIMITED',
          `DeepL is rate limiting requests (429)${seconds === null ? '' : `; retry after ${seconds} s`}`,
          seconds,
        );
      }
      if (error instanceof deepl().ConnectionError) {
        throw new ProviderError('PROVIDER_UNAVAILABLE', `DeepL could not be reached: ${detail}`);
      }
      if (error instanceof deepl().DeepLError)
        throw new ProviderError('PROVIDER_REFUSED', `DeepL: ${detail}`);
      throw error;
    }
  }

  return {
    name: 'deepl',
    sourceLanguage: deeplSourceLanguage,
    targetLanguage: deeplTargetLanguage,
    glossaryPair(sourceLocale, targetLocale) {
      const source = deeplSourceLanguage(sourceLocale);
      const target = deeplTargetLanguage(targetLocale)?.split('-')[0] ?? null;
      if (source === null || target === null || source === target) return null;
      return GLOSSARY_LANGUAGES.has(source) && GLOSSARY_LANGUAGES.has(target) ? { source, target } : null;
    },

    async translate(apiKey, request: TranslateRequest) {
      const source = deeplSourceLanguage(request.sourceLocale);
      const target = deeplTargetLanguage(request.targetLocale);
      if (source === null || target === null) {
        throw new ProviderError(
          'PROVIDER_REFUSED',
          `DeepL cannot translate ${request.sourceLocale} → ${request.targetLocale}`,
        );
      }
      const kept = keptTermsPattern(request.keptTerms ?? []);
      const texts = kept === null ? request.texts : request.texts.map((t) => markKeptTerms(t, kept));
      const results = await call(apiKey, (translator) =>
        translator.translateText(
          texts,
          source as Deepl.SourceLanguageCode,
          target as Deepl.TargetLanguageCode,
          {
            ...(request.formality !== undefined && {
              formality: request.formality === 'more' ? 'prefer_more' : 'prefer_less',
            }),
            ...(request.glossaryId !== undefined && { glossary: request.glossaryId }),
            ...(kept !== null && { tagHandling: 'xml', ignoreTags: [KEEP_TAG] }),
          },
        ),
      );
      return {
        texts: results.map((r) => (kept === null ? r.text : unmarkKeptTerms(r.text))),
        billedCharacters: results.reduce((sum, r) => sum + (r.billedCharacters ?? [...r.text].length), 0),
      };
    },

    async createGlossary(apiKey, glossary: GlossaryInput) {
      const pair = this.glossaryPair(glossary.sourceLocale, glossary.targetLocale);
      if (pair === null) {
        throw new ProviderError(
          'PROVIDER_REFUSED',
          `DeepL has no glossaries for ${glossary.sourceLocale} → ${glossary.targetLocale}`,
        );
      }
      const info = await call(apiKey, (translator) =>
        translator.createGlossary(
          glossary.name,
          pair.source as Deepl.SourceGlossaryLanguageCode,
          pair.target as Deepl.TargetGlossaryLanguageCode,
          new (deepl().GlossaryEntries)({ entries: glossary.entries }),
        ),
      );
      return info.glossaryId;
    },

    async deleteGlossary(apiKey, glossaryId) {
      await call(apiKey, (translator) => translator.deleteGlossary(glossaryId));
    },

    async usage(apiKey) {
      const usage = await call(apiKey, (translator) => translator.getUsage());
      return { characters: usage.character?.count ?? 0, limit: usage.character?.limit ?? null };
    },
  };
}
