/** Translations: source locale, state tracking, XLIFF, machine drafts and glossaries (design.md §14). */
export { createGlossaries, type Glossaries } from './glossaries.js';
export { createMachineTranslation, type MachineTranslation } from './machine-translation.js';
export { readMatrix, storeLocaleOf, type Matrix, type MatrixEntry } from './translation-matrix.js';
export { TRANSLATION_STATES, type TranslationState } from './translation-state.js';
export { createTranslationTracker } from './translation-tracker.js';
export { translationRoutes } from './translations.routes.js';
export { createTranslationsService, type TranslationsService } from './translations.service.js';
