/**
 * The one interface behind which machine translation providers sit (DeepL first). Services speak
 * in our locale codes and plain texts; a provider maps them to its own languages and API.
 */

/** What a provider's answer was, said so that a person knows what to do. */
export type ProviderErrorCode =
  'PROVIDER_AUTH' | 'PROVIDER_QUOTA' | 'PROVIDER_RATE_LIMITED' | 'PROVIDER_UNAVAILABLE' | 'PROVIDER_REFUSED';

export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    /** From Retry-After, on PROVIDER_RATE_LIMITED. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export type Formality = 'more' | 'less';

export interface TranslateRequest {
  texts: string[];
  /** Our locale codes; the provider maps them (null when it cannot). */
  sourceLocale: string;
  targetLocale: string;
  formality?: Formality;
  glossaryId?: string;
  /** Terms to leave as written wherever they occur (the organization's do-not-translate list). */
  keptTerms?: readonly string[];
}

export interface GlossaryInput {
  name: string;
  sourceLocale: string;
  targetLocale: string;
  /** source term → target term; a term kept as it is maps to itself. */
  entries: Record<string, string>;
}

export interface TranslationProvider {
  readonly name: string;
  /** The provider's language for a locale, or null when it cannot translate from / into it. */
  sourceLanguage(locale: string): string | null;
  targetLanguage(locale: string): string | null;
  /** The glossary language pair of two locales, or null when the provider has none for it. */
  glossaryPair(sourceLocale: string, targetLocale: string): { source: string; target: string } | null;
  translate(
    apiKey: string,
    request: TranslateRequest,
  ): Promise<{ texts: string[]; billedCharacters: number }>;
  createGlossary(apiKey: string, glossary: GlossaryInput): Promise<string>;
  deleteGlossary(apiKey: string, glossaryId: string): Promise<void>;
  /** Characters used and allowed in the provider's billing period; also what proves a key works. */
  usage(apiKey: string): Promise<{ characters: number; limit: number | null }>;
}
