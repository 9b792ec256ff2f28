/**
 * Google Play app details in the emulator (stores-more.md §C5): `edits.details` get, patch and
 * update inside an edit, bodies and answers against Google's `AppDetails`. PUT replaces the whole
 * object, so one without `defaultLanguage` is refused (Triple-T/gradle-play-publisher#89); the
 * default language must be a language the edit has a listing in (unconfirmed); a commit that
 * changed the details leaves none without a contact e-mail (403 `noEmail`, as Google answers an
 * app without one). Writes are logged in `detailsCalls` for the "exact calls" tests.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { PlayFailure } from './errors.js';
import { LOCALES } from './rules.js';
import type { AppDetails, Edit, PlayState } from './state.js';
import type { Req } from './access.js';

const FIELDS = ['defaultLanguage', 'contactEmail', 'contactPhone', 'contactWebsite'] as const;

/** Google's `AppDetails` of what is set (empty texts are unset). */
const asAppDetails = (details: AppDetails) =>
  Object.fromEntries(FIELDS.flatMap((f) => (details[f] ? [[f, details[f]]] : [])));

/** At commit, when the edit changed the details: an app keeps a default language and a contact e-mail. */
export function checkDetailsAtCommit(edit: Edit): void {
  if (!edit.detailsChanged) return;
  if (!edit.details.defaultLanguage) {
    throw new PlayFailure(
      403,
      'PERMISSION_DENIED',
      'This app does not have a default language set.',
      'noDefaultLanguage',
      'androidpublisher',
    );
  }
  if (!edit.details.contactEmail) {
    throw new PlayFailure(
      403,
      'PERMISSION_DENIED',
      'This app does not have a contact email address set.',
      'noEmail',
      'androidpublisher',
    );
  }
}

export function registerPlayDetails(state: PlayState, spec: SpecValidator) {
  const respond = (reply: FastifyReply, body: unknown) => {
    const problem = spec.check('AppDetails', body);
    if (problem !== null) throw new Error(`emulator response does not match AppDetails: ${problem}`);
    return reply.code(200).type('application/json').send(body);
  };
  const checkBody = (raw: unknown): Partial<AppDetails> => {
    const body: object = raw ?? {};
    const problem = spec.check('AppDetails', body);
    if (problem !== null)
      throw new PlayFailure(
        400,
        'INVALID_ARGUMENT',
        `Invalid JSON payload received. ${problem}`,
        'badRequest',
      );
    return body;
  };
  const checkLanguage = (edit: Edit, language: string | undefined) => {
    if (language === undefined) return;
    if (!LOCALES.has(language))
      throw new PlayFailure(400, 'INVALID_ARGUMENT', `Invalid language code: ${language}`, 'badRequest');
    if (!edit.listings.has(language)) {
      throw new PlayFailure(
        400,
        'INVALID_ARGUMENT',
        `The default language must be a language the app has a store listing in: ${language}`,
        'badRequest',
      );
    }
  };

  return (scope: FastifyInstance, requireEdit: (request: Req, id: string) => { edit: Edit }) => {
    const base = '/applications/:packageName/edits/:editId/details';
    const log = (request: Req) => state.detailsCalls.push(`${request.method} details`);

    scope.get(base, async (request: Req, reply) =>
      respond(reply, asAppDetails(requireEdit(request, request.params.editId!).edit.details)),
    );
    scope.patch(base, async (request: Req, reply) => {
      const { edit } = requireEdit(request, request.params.editId!);
      log(request);
      const body = checkBody(request.body);
      checkLanguage(edit, body.defaultLanguage);
      edit.details = { ...edit.details, ...body };
      edit.detailsChanged = true;
      return respond(reply, asAppDetails(edit.details));
    });
    scope.put(base, async (request: Req, reply) => {
      const { edit } = requireEdit(request, request.params.editId!);
      log(request);
      const body = checkBody(request.body);
      if (!body.defaultLanguage) {
        throw new PlayFailure(400, 'INVALID_ARGUMENT', 'Default language is required.', 'badRequest');
      }
      checkLanguage(edit, body.defaultLanguage);
      edit.details = { defaultLanguage: body.defaultLanguage, ...body };
      edit.detailsChanged = true;
      return respond(reply, asAppDetails(edit.details));
    });
  };
}
